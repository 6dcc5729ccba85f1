package dev.delayq.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import redis.clients.jedis.AbstractTransaction;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;

/**
 * Where one job's id is, read in one transaction on its shard: its record (null when none), its
 * due time when delayed, its position when ready, when it died when dead, the consumer whose
 * in-flight list holds it, and when it waits for other jobs (a workflow) its entry in waiting
 * ({@code <policy>:<delay ms>:<since ms>}) with the ids it still waits for. More than one set is a
 * breach of the invariant; the caller judges.
 */
public record JobPlaces(String rawRecord, Double delayedAt, Long readyPosition, Double deadAt, String consumer,
    String waiting, List<String> waitingFor) {

  static JobPlaces read(UnifiedJedis redis, Scripts scripts, Keys shard, String id, List<String> inFlightLists) {
    // readDelayed.lua on the shard's master, so that the transaction can call it by SHA
    scripts.load(Script.READ_DELAYED, shard.delayed());
    Scripts.Call wheel = DelayedReads.scoreCall(shard, id);
    try (AbstractTransaction tx = Slots.multi(redis, shard.jobs())) {
      Response<String> rawR = tx.hget(shard.jobs(), id);
      Response<Object> delayedR = tx.evalsha(Script.READ_DELAYED.sha(), wheel.keys(), wheel.args());
      Response<Long> readyR = tx.lpos(shard.ready(), id);
      Response<Double> deadR = tx.zscore(shard.dead(), id);
      Response<String> waitingR = tx.hget(shard.waiting(), id);
      Response<Set<String>> waitForR = tx.smembers(shard.waitFor(id));
      // in-flight lists hold deliveries, <token>|<id>, and are short: read them whole
      List<Response<List<String>>> inFlight = new ArrayList<>(inFlightLists.size());
      for (String l : inFlightLists) {
        inFlight.add(tx.lrange(l, 0, -1));
      }
      tx.exec();
      String consumer = null;
      String listPrefix = shard.inFlight("");
      for (int i = 0; i < inFlightLists.size() && consumer == null; i++) {
        for (String delivery : inFlight.get(i).get()) {
          if (Delivery.idOf(delivery).equals(id)) {
            consumer = inFlightLists.get(i).substring(listPrefix.length());
            break;
          }
        }
      }
      Double delayedAt = delayedR.get() == null ? null : ((Long) delayedR.get()).doubleValue();
      List<String> waitingFor = new ArrayList<>(new TreeSet<>(waitForR.get()));
      return new JobPlaces(rawR.get(), delayedAt, readyR.get(), deadR.get(), consumer, waitingR.get(), waitingFor);
    }
  }
}

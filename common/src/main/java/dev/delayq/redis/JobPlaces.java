package dev.delayq.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import redis.clients.jedis.AbstractTransaction;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.LPosParams;

/**
 * Where one job's id is, read in one transaction on its shard: its record (null when none), its
 * due time when delayed, its position when ready, when it died when dead, the consumer whose
 * in-flight list holds it, and when it waits for other jobs (a workflow) its entry in waiting
 * ({@code <policy>:<delay ms>:<since ms>}) with the ids it still waits for. More than one set is a
 * breach of the invariant; the caller judges. Ready is looked at from both ends in that transaction,
 * {@value #READY_ENDS} ids each, and its middle searched after in bounded calls only for a job with
 * a record in no other place (a long ready list is the normal state of a large backlog), so no call
 * walks millions of ids.
 */
public record JobPlaces(String rawRecord, Double delayedAt, Long readyPosition, Double deadAt, String consumer,
    String waiting, List<String> waitingFor) {

  /**
   * Elements of ready LPOS compares from each end in the transaction: a job about to run or just
   * made due is found there; one deeper in a long ready list is looked for by {@link ListSearch}.
   */
  static final int READY_ENDS = 1_000;

  static JobPlaces read(UnifiedJedis redis, Scripts scripts, Keys shard, String id, List<String> inFlightLists) {
    Read first = readOnce(redis, scripts, shard, id, inFlightLists);
    if (!first.deeperInReady()) {
      return first.places();
    }
    Long at = ListSearch.find(scripts, shard.ready(), id, READY_ENDS - ListSearch.OVERLAP);
    JobPlaces p = first.places();
    if (at != null) {
      return new JobPlaces(p.rawRecord, p.delayedAt, at, p.deadAt, p.consumer, p.waiting, p.waitingFor);
    }
    // not found: it may have moved while the search went on (to a consumer, say): read again,
    // the ends of ready and every other place in one transaction, and take that answer
    return readOnce(redis, scripts, shard, id, inFlightLists).places();
  }

  /** One transaction's places, and whether the job may be in ready beyond the ends it looked at. */
  private record Read(JobPlaces places, boolean deeperInReady) {}

  private static Read readOnce(UnifiedJedis redis, Scripts scripts, Keys shard, String id,
      List<String> inFlightLists) {
    // readDelayed.lua on the shard's master, so that the transaction can call it by SHA
    scripts.load(Script.READ_DELAYED, shard.delayed());
    Scripts.Call wheel = DelayedReads.scoreCall(shard, id);
    try (AbstractTransaction tx = Slots.multi(redis, shard.jobs())) {
      Response<String> rawR = tx.hget(shard.jobs(), id);
      Response<Object> delayedR = tx.evalsha(Script.READ_DELAYED.sha(), wheel.keys(), wheel.args());
      // LPOS walks the list: from each end, a bounded stretch (the rest, if need be, after)
      Response<Long> readyHeadR = tx.lpos(shard.ready(), id, LPosParams.lPosParams().maxlen(READY_ENDS));
      Response<Long> readyTailR = tx.lpos(shard.ready(), id, LPosParams.lPosParams().rank(-1).maxlen(READY_ENDS));
      Response<Long> readyLengthR = tx.llen(shard.ready());
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
      Long readyAt = readyHeadR.get() != null ? readyHeadR.get() : readyTailR.get();
      // a job with a record in no other place (the ends of ready looked at) is in the middle of a
      // long ready list, or in no place at all (an orphan): only a search of the middle tells
      boolean deeper = readyAt == null && readyLengthR.get() > 2L * READY_ENDS && rawR.get() != null
          && delayedAt == null && deadR.get() == null && consumer == null && waitingR.get() == null;
      return new Read(new JobPlaces(rawR.get(), delayedAt, readyAt, deadR.get(), consumer, waitingR.get(),
          waitingFor), deeper);
    }
  }
}

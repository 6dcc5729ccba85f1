package dev.delayq.redis;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import redis.clients.jedis.AbstractTransaction;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * The read and admin side of the Redis contract: queue depths and the consistency check.
 * Kept apart from {@link RedisBroker}, which is the hot path. A sharded queue is read shard by
 * shard, each in one transaction on the master of its slot; the invariant holds per shard (an id
 * lives only in its own shard), so the check is the union of the shards' checks.
 */
public final class Inspector {
  private final UnifiedJedis redis;
  private final Keys keys;

  public Inspector(UnifiedJedis redis, Keys keys) {
    this.redis = redis;
    this.keys = keys;
  }

  /** How many jobs are in each place, read in one transaction. */
  public record Depths(long delayed, long ready, long inFlight, long dead, long records) {}

  /**
   * The depths, with {@code inFlight} summed over the lists of registered consumers: a claim
   * registers its consumer in the same script, so that is every list a live consumer holds.
   * No SCAN: status, every scrape and the drain report call this, and a SCAN walks the whole
   * keyspace. The lists of an unregistered consumer (one that died and was dropped from the
   * registry) are not counted until the recoverer has put their jobs back.
   */
  public Depths depths() {
    Depths sum = new Depths(0, 0, 0, 0, 0);
    for (Keys shard : keys.allShards()) {
      Depths d = depths(shard);
      sum = new Depths(sum.delayed() + d.delayed(), sum.ready() + d.ready(), sum.inFlight() + d.inFlight(),
          sum.dead() + d.dead(), sum.records() + d.records());
    }
    return sum;
  }

  /** The depths of one shard, read in one transaction on its master. */
  public Depths depths(Keys keys) {
    List<String> lists = registeredInFlightKeys(keys);
    try (AbstractTransaction tx = Slots.multi(redis, keys.jobs())) {
      Response<Long> delayed = tx.zcard(keys.delayed());
      Response<Long> ready = tx.llen(keys.ready());
      Response<Long> dead = tx.zcard(keys.dead());
      Response<Long> records = tx.hlen(keys.jobs());
      List<Response<Long>> inFlight = new ArrayList<>();
      for (String l : lists) {
        inFlight.add(tx.llen(l));
      }
      tx.exec();
      long sum = inFlight.stream().mapToLong(Response::get).sum();
      return new Depths(delayed.get(), ready.get(), sum, dead.get(), records.get());
    }
  }

  /** One breach of the invariant "every job is in exactly one place, with its record". */
  public record Breach(String id, Kind kind, List<String> places) {
    public enum Kind {
      /** A record in jobs whose id is in no structure: the article's orphan. */
      ORPHAN_RECORD,
      /** An id in a structure with no record in jobs. */
      MISSING_RECORD,
      /** An id in two structures, or twice in one. */
      SEVERAL_PLACES
    }

    @Override
    public String toString() {
      return switch (kind) {
        case ORPHAN_RECORD -> id + ": record in jobs but the id is in no structure";
        case MISSING_RECORD -> id + ": in " + String.join(", ", places) + " without a record";
        case SEVERAL_PLACES -> id + ": in several places at once: " + String.join(", ", places);
      };
    }
  }

  /**
   * Checks the invariant over the whole queue. An in-flight list holds deliveries
   * ({@code <token>|<id>}, or a bare id BLMOVE left); each counts as a place of its id. A breach
   * must show in three snapshots taken a moment apart to be reported, so jobs moving under a live
   * system are not mistaken for one.
   */
  public List<Breach> check() {
    Map<String, Breach> persistent = null;
    for (int round = 0; round < 3; round++) {
      Map<String, Breach> found = new LinkedHashMap<>();
      for (Breach b : checkOnce()) {
        found.put(b.id() + "/" + b.kind(), b);
      }
      if (persistent == null) {
        persistent = found;
      } else {
        persistent.keySet().retainAll(found.keySet());
      }
      if (persistent.isEmpty()) {
        break;
      }
      sleepQuietly(50);
    }
    return new ArrayList<>(persistent.values());
  }

  List<Breach> checkOnce() {
    List<Breach> all = new ArrayList<>();
    for (Keys shard : keys.allShards()) {
      all.addAll(checkOnce(shard));
    }
    return all;
  }

  private List<Breach> checkOnce(Keys keys) {
    List<String> lists = inFlightKeys(keys);
    Map<String, List<String>> places = new HashMap<>();
    Set<String> records;
    try (AbstractTransaction tx = Slots.multi(redis, keys.jobs())) {
      Response<Set<String>> jobIds = tx.hkeys(keys.jobs());
      Response<List<String>> delayed = tx.zrange(keys.delayed(), 0, -1);
      Response<List<String>> ready = tx.lrange(keys.ready(), 0, -1);
      Response<List<String>> dead = tx.zrange(keys.dead(), 0, -1);
      Map<String, Response<List<String>>> inFlight = new LinkedHashMap<>();
      for (String l : lists) {
        inFlight.put(l, tx.lrange(l, 0, -1));
      }
      tx.exec();
      records = jobIds.get();
      String shardName = this.keys.shards() == 1 ? "" : " of shard " + keys.shard();
      note(places, "delayed" + shardName, delayed.get());
      note(places, "ready" + shardName, ready.get());
      note(places, "dead" + shardName, dead.get());
      inFlight.forEach((key, deliveries) -> note(places, key.substring(key.lastIndexOf("}:") + 2) + shardName,
          deliveries.get().stream().map(Delivery::idOf).toList()));
    }
    List<Breach> breaches = new ArrayList<>();
    for (String id : records) {
      if (!places.containsKey(id)) {
        breaches.add(new Breach(id, Breach.Kind.ORPHAN_RECORD, List.of()));
      }
    }
    places.forEach((id, where) -> {
      if (!records.contains(id)) {
        breaches.add(new Breach(id, Breach.Kind.MISSING_RECORD, where));
      } else if (where.size() > 1) {
        breaches.add(new Breach(id, Breach.Kind.SEVERAL_PLACES, where));
      }
    });
    return breaches;
  }

  private static void note(Map<String, List<String>> places, String place, List<String> ids) {
    for (String id : ids) {
      places.computeIfAbsent(id, k -> new ArrayList<>(1)).add(place);
    }
  }

  /** The in-flight lists of the consumers in one shard's registry. */
  private List<String> registeredInFlightKeys(Keys keys) {
    return redis.zrange(keys.consumers(), 0, -1).stream().map(keys::inFlight).toList();
  }

  /**
   * Every in-flight list: those of registered consumers and any other found by SCAN (on a
   * cluster: among the keys of the queue's slot, on its master alone).
   */
  public List<String> inFlightKeys() {
    List<String> all = new ArrayList<>();
    for (Keys shard : keys.allShards()) {
      all.addAll(inFlightKeys(shard));
    }
    return all;
  }

  /** Every in-flight list of one shard. */
  public List<String> inFlightKeys(Keys keys) {
    Set<String> found = new LinkedHashSet<>(registeredInFlightKeys(keys));
    List<String> inSlot = Slots.keysInSlot(redis, keys.jobs(), keys.inFlight(""));
    if (inSlot != null) {
      found.addAll(inSlot);
      return found.stream().sorted().collect(Collectors.toList());
    }
    ScanParams params = new ScanParams().match(keys.inFlightPattern()).count(1000);
    String cursor = ScanParams.SCAN_POINTER_START;
    do {
      ScanResult<String> page = redis.scan(cursor, params);
      found.addAll(page.getResult());
      cursor = page.getCursor();
    } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
    return found.stream().sorted().collect(Collectors.toList());
  }

  /** Consumers that have an in-flight list (found by SCAN) but are not registered, in any shard. */
  public List<String> unregisteredConsumers() {
    Set<String> out = new LinkedHashSet<>();
    for (Keys shard : keys.allShards()) {
      out.addAll(unregisteredConsumers(shard));
    }
    return new ArrayList<>(out);
  }

  /** Consumers with an in-flight list in one shard that are not registered in that shard. */
  public List<String> unregisteredConsumers(Keys keys) {
    String listPrefix = keys.inFlight("");
    Set<String> registered = new java.util.HashSet<>(redis.zrange(keys.consumers(), 0, -1));
    List<String> out = new ArrayList<>();
    for (String key : inFlightKeys(keys)) {
      String consumer = key.substring(listPrefix.length());
      if (!registered.contains(consumer)) {
        out.add(consumer);
      }
    }
    return out;
  }

  private static void sleepQuietly(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

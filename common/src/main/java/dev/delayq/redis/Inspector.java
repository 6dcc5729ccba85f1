package dev.delayq.redis;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.AbstractTransaction;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;
import redis.clients.jedis.resps.Tuple;

/**
 * The read side of the Redis contract: queue depths, the backlog, flow control's state, and the
 * keys a queue's jobs live in (in-flight lists, held lists, sets waiting for a handler) that
 * recovery and the {@link InvariantCheck} walk. Kept apart from {@link RedisBroker}, which is the
 * hot path. A sharded queue is read shard by shard, each in one transaction on the master of its
 * slot.
 */
public final class Inspector {
  private final UnifiedJedis redis;
  private final Keys keys;
  private final Scripts scripts;

  public Inspector(UnifiedJedis redis, Keys keys) {
    this.redis = redis;
    this.keys = keys;
    this.scripts = new Scripts(redis);
  }

  /**
   * How many jobs are in each place, read in one transaction: {@code waiting} are jobs waiting
   * for other jobs to end (workflows), {@code batchesOpen} the batches neither finished nor
   * cancelled.
   */
  public record Depths(long delayed, long ready, long inFlight, long dead, long records, long waiting,
      long batchesOpen) {
    /** A queue with no workflow in it: nothing waiting, no batch open. */
    public Depths(long delayed, long ready, long inFlight, long dead, long records) {
      this(delayed, ready, inFlight, dead, records, 0, 0);
    }
  }

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
          sum.dead() + d.dead(), sum.records() + d.records(), sum.waiting() + d.waiting(),
          sum.batchesOpen() + d.batchesOpen());
    }
    return sum;
  }

  /** The depths of one shard, read in one transaction on its master. */
  public Depths depths(Keys keys) {
    List<String> lists = registeredInFlightKeys(keys);
    try (AbstractTransaction tx = Slots.multi(redis, keys.jobs())) {
      // the wheel's count, and the old ZSET's ids until the forwarder has drained it
      Response<String> wheel = tx.get(keys.delayedCount());
      Response<Long> delayed = tx.zcard(keys.delayed());
      Response<Long> ready = tx.llen(keys.ready());
      Response<Long> dead = tx.zcard(keys.dead());
      Response<Long> records = tx.hlen(keys.jobs());
      Response<Long> waiting = tx.hlen(keys.waiting());
      Response<Long> batches = tx.zcard(keys.batches());
      List<Response<Long>> inFlight = new ArrayList<>();
      for (String l : lists) {
        inFlight.add(tx.llen(l));
      }
      tx.exec();
      long sum = inFlight.stream().mapToLong(Response::get).sum();
      long inWheel = wheel.get() == null ? 0 : Long.parseLong(wheel.get());
      return new Depths(inWheel + delayed.get(), ready.get(), sum, dead.get(), records.get(), waiting.get(),
          batches.get());
    }
  }

  /**
   * The backlog, over every shard: {@code jobs} waiting to run now (ready, and delayed ones due
   * by then), and the due time of the oldest of them ({@code oldestDueMs}, Long.MAX_VALUE for
   * none): a stopped scheduler or too few workers show there first.
   */
  public record Backlog(long jobs, long oldestDueMs) {
    /** How long past its due time the oldest waiting job is at {@code nowMs}; 0 for none. */
    public long overdueMs(long nowMs) {
      return oldestDueMs == Long.MAX_VALUE ? 0 : Math.max(0, nowMs - oldestDueMs);
    }
  }

  /**
   * The backlog at {@code nowMs} (epoch ms, Redis time): each shard's due count and earliest due
   * job (readDelayed.lua), its ready length and next ready id, all in one pipeline (one round trip
   * per master, not per shard), then the next ready jobs' records in a second. A due count past
   * one call's buckets goes on in bounded calls (a scheduler that stopped leaves many).
   */
  public Backlog backlog(long nowMs) {
    List<Keys> shards = keys.allShards();
    String now = Long.toString(nowMs);
    List<Scripts.Call> calls = new ArrayList<>(2 * shards.size());
    for (Keys shard : shards) {
      calls.add(DelayedReads.countSomeCall(shard, "-inf", now, ""));
      calls.add(DelayedReads.rangeCall(shard, "-inf", now, 0, 1));
    }
    Scripts.Beside<List<Response<?>>> read = scripts.evalBeside(Script.READ_DELAYED, calls, p -> {
      List<Response<?>> ready = new ArrayList<>(2 * shards.size());
      for (Keys shard : shards) {
        ready.add(p.llen(shard.ready()));
        ready.add(p.lindex(shard.ready(), -1)); // the one its consumers take next
      }
      return ready;
    });
    long jobs = 0;
    long oldestDue = Long.MAX_VALUE;
    Map<Integer, String> nextReady = new LinkedHashMap<>();
    DelayedReads delayed = new DelayedReads(scripts);
    for (int i = 0; i < shards.size(); i++) {
      // a backlog of due jobs longer than one step's buckets is counted on, a step a call
      DelayedReads.Counted due = DelayedReads.counted(read.replies().get(2 * i));
      long rest = due.next().isEmpty() ? 0 : delayed.countFrom(shards.get(i), "-inf", now, due.next());
      jobs += due.n() + rest + (Long) Pipelines.reply(read.beside().get(2 * i), "LLEN of ready");
      List<Tuple> first = DelayedReads.tuples(read.replies().get(2 * i + 1));
      if (!first.isEmpty()) {
        oldestDue = Math.min(oldestDue, (long) first.get(0).getScore());
      }
      String id = (String) Pipelines.reply(read.beside().get(2 * i + 1), "LINDEX of ready");
      if (id != null) {
        nextReady.put(i, id);
      }
    }
    if (nextReady.isEmpty()) {
      return new Backlog(jobs, oldestDue);
    }
    Map<Integer, Response<String>> records = new LinkedHashMap<>();
    try (AbstractPipeline p = Pipelines.open(redis)) {
      nextReady.forEach((i, id) -> records.put(i, p.hget(shards.get(i).jobs(), id)));
      p.sync();
    }
    for (Map.Entry<Integer, Response<String>> r : records.entrySet()) {
      oldestDue = Math.min(oldestDue, dueAtOf(nextReady.get(r.getKey()), Pipelines.reply(r.getValue(), "HGET of a record")));
    }
    return new Backlog(jobs, oldestDue);
  }

  /** A waiting job's due time; Long.MAX_VALUE without a readable record (its worker dead-letters it). */
  private static long dueAtOf(String id, String raw) {
    if (raw == null) {
      return Long.MAX_VALUE;
    }
    try {
      return JobRecord.parse(id, raw).dueAt();
    } catch (JobRecord.MalformedRecordException e) {
      return Long.MAX_VALUE;
    }
  }

  /**
   * Flow control's state: the paused scopes ({@code *} for the whole queue, else a job type) with
   * since when (epoch ms), and the jobs held per type (taken from ready while paused or at a cap),
   * summed over the shards. On a sharded queue a scope is in {@code paused} only when every shard
   * has it; one that only some shards have (a pause or resume that failed part way, see
   * {@link ShardsPaused}) is in {@code partlyPaused} instead, and its jobs still start elsewhere.
   * {@code waitingForHandler}: due jobs per type that a worker without the type's handler left for
   * one that has it ({@link HandlerWait}).
   */
  public record Flow(Map<String, Long> paused, Map<String, Long> held, Map<String, ShardsPaused> partlyPaused,
      Map<String, Long> waitingForHandler) {
    /** A queue of one shard, or one with nothing partly paused. */
    public Flow(Map<String, Long> paused, Map<String, Long> held) {
      this(paused, held, Map.of());
    }

    /** With no job waiting for a handler. */
    public Flow(Map<String, Long> paused, Map<String, Long> held, Map<String, ShardsPaused> partlyPaused) {
      this(paused, held, partlyPaused, Map.of());
    }

    public long waitingForHandlerTotal() {
      return waitingForHandler.values().stream().mapToLong(Long::longValue).sum();
    }

    public boolean queuePaused() {
      return paused.containsKey("*");
    }

    /** True when jobs of {@code type} may not start now by a pause, on every shard (see {@code partlyPaused}). */
    public boolean paused(String type) {
      return queuePaused() || paused.containsKey(type);
    }

    public long heldTotal() {
      return held.values().stream().mapToLong(Long::longValue).sum();
    }
  }

  /**
   * A scope paused on {@code shards} of the queue's {@code of} shards only, the earliest since
   * {@code sinceMs}: the others still start its jobs. Pausing it again finishes the pause;
   * resuming it lifts the rest.
   */
  public record ShardsPaused(int shards, int of, long sinceMs) {
    @Override
    public String toString() {
      return "paused on " + shards + " of " + of + " shards";
    }
  }

  /**
   * Flow control's state, from each shard's small paused hash and held index (no SCAN). A scope
   * is paused since its earliest shard's since.
   */
  public Flow flow() {
    Map<String, Long> since = new TreeMap<>();
    Map<String, Integer> shardsPaused = new HashMap<>();
    Map<String, Long> held = new TreeMap<>();
    for (Keys shard : keys.allShards()) {
      redis.hgetAll(shard.paused()).forEach((scope, at) -> {
        since.merge(scope, parseLong(at), Math::min);
        shardsPaused.merge(scope, 1, Integer::sum);
      });
      for (String type : redis.smembers(shard.heldIndex())) {
        long n = redis.llen(shard.held(type));
        if (n > 0) {
          held.merge(type, n, Long::sum);
        }
      }
    }
    Map<String, Long> paused = new TreeMap<>();
    Map<String, ShardsPaused> partly = new TreeMap<>();
    since.forEach((scope, at) -> {
      int on = shardsPaused.get(scope);
      if (on == keys.shards()) {
        paused.put(scope, at);
      } else {
        partly.put(scope, new ShardsPaused(on, keys.shards(), at));
      }
    });
    return new Flow(paused, held, partly, new HandlerWait(redis, keys, scripts).waiting());
  }

  private static long parseLong(String s) {
    try {
      return Long.parseLong(s);
    } catch (NumberFormatException e) {
      return 0;
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
    scanInto(found, keys.inFlightPattern());
    return found.stream().sorted().collect(Collectors.toList());
  }

  /** Adds every key that matches {@code pattern} to {@code found}, by SCAN (a thousand a step). */
  private void scanInto(Set<String> found, String pattern) {
    ScanParams params = new ScanParams().match(pattern).count(1000);
    String cursor = ScanParams.SCAN_POINTER_START;
    do {
      ScanResult<String> page = redis.scan(cursor, params);
      found.addAll(page.getResult());
      cursor = page.getCursor();
    } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
  }

  /**
   * Every type's held list (flow control) of one shard, found by SCAN: the index is not trusted
   * by a check. A claim holds a job in its own shard, so each shard's are checked with its records.
   */
  List<String> heldKeys(Keys keys) {
    Set<String> found = new LinkedHashSet<>();
    for (String type : redis.smembers(keys.heldIndex())) {
      found.add(keys.held(type));
    }
    scanInto(found, keys.heldPattern());
    return new ArrayList<>(found);
  }

  /** Every type's set of jobs waiting for a handler, of one shard, found by SCAN as the held lists are. */
  List<String> noHandlerKeys(Keys keys) {
    Set<String> found = new LinkedHashSet<>();
    for (String type : redis.smembers(keys.noHandlerIndex())) {
      found.add(keys.noHandler(type));
    }
    scanInto(found, keys.noHandlerPattern());
    return new ArrayList<>(found);
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
}

package dev.delayq.redis;

import dev.delayq.process.RunningFile;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The one recovery policy, used by the scheduler's recoverer, {@code delayq recover} and the
 * supervisor's instant recovery: a consumer whose heartbeat expired has its deliveries taken back;
 * an in-flight list whose consumer is not registered is taken back once it has been seen so at
 * two sweeps in a row (a consumer may claim a moment before it registers); every list of a
 * process known to be gone is taken back at once. Taking back charges only the job whose handler
 * was running (see requeueInFlight.lua). Each caller keeps its own instance, since the sweeps
 * remember what the last one saw; one shard's calls run on one thread at a time, different shards'
 * may run at once (the scheduler's, each master's on its own thread).
 */
public final class Recovery {
  private final RedisBroker broker;
  private final Inspector inspector;
  private final int poisonPillAfter;
  /** Per shard, the consumers whose in-flight list there was unregistered at the last sweep. */
  private final Map<Integer, Set<String>> unregisteredLastSweep = new ConcurrentHashMap<>();

  /** The policy over {@code broker}'s queue, finding in-flight lists with its own {@link Inspector}. */
  public Recovery(RedisBroker broker, int poisonPillAfter) {
    this(broker, broker.inspector(), poisonPillAfter);
  }

  public Recovery(RedisBroker broker, Inspector inspector, int poisonPillAfter) {
    this.broker = broker;
    this.inspector = inspector;
    this.poisonPillAfter = poisonPillAfter;
  }

  /** Why a consumer's deliveries were taken back. */
  public enum Cause { HEARTBEAT_EXPIRED, UNREGISTERED, PROCESS_GONE }

  /** One consumer whose deliveries were taken back, and what became of them. */
  public record TakenBack(String consumer, Cause cause, Requeued result) {
    /** One log line: what was taken back, and what was charged. */
    public String describe() {
      return result.taken() + " job(s) of consumer " + consumer + " (" + switch (cause) {
        case HEARTBEAT_EXPIRED -> "heartbeat expired";
        case UNREGISTERED -> "unregistered in-flight list";
        case PROCESS_GONE -> "process gone";
      } + "): " + result.uncharged() + " back to ready uncharged, " + result.charged()
          + " that was running charged an attempt (" + result.deadLettered() + " of them to dead)"
          + (result.acknowledged() == 0 ? "" : ", " + result.acknowledged()
              + " that had finished acknowledged (the crash record shows them done)");
    }
  }

  /** Takes back the consumers whose heartbeat expired by {@code redisNowMs}, at most {@code most}. */
  public List<TakenBack> expired(long redisNowMs, int most, String reasonSuffix) {
    List<TakenBack> out = new ArrayList<>();
    for (int shard = 0; shard < broker.shards(); shard++) {
      out.addAll(expired(shard, redisNowMs, most, reasonSuffix));
    }
    return out;
  }

  /** As {@link #expired(long, int, String)}, in one shard (the scheduler's: it holds that shard). */
  public List<TakenBack> expired(int shard, long redisNowMs, int most, String reasonSuffix) {
    List<TakenBack> out = new ArrayList<>();
    for (String consumer : broker.consumerRegistry().expiredConsumers(shard, redisNowMs, most)) {
      // the script re-checks the expiry, so a consumer that beat again since keeps its jobs
      Requeued r = broker.consumerRegistry().requeueInFlight(shard, consumer, RequeueMode.EXPIRED,
          "heartbeat of consumer " + consumer + " expired" + reasonSuffix, poisonPillAfter);
      if (!r.consumerAlive()) {
        out.add(new TakenBack(consumer, Cause.HEARTBEAT_EXPIRED, r));
      }
    }
    return out;
  }

  /** Takes back the lists of consumers unregistered at this sweep and at the one before. */
  public List<TakenBack> sweepUnregistered(String reasonSuffix) {
    List<TakenBack> out = new ArrayList<>();
    for (int shard = 0; shard < broker.shards(); shard++) {
      out.addAll(sweepUnregistered(shard, reasonSuffix));
    }
    return out;
  }

  /**
   * As {@link #sweepUnregistered(String)}, in one shard: a consumer unregistered there may be
   * registered (and alive) in another, so only that shard's list is taken back.
   */
  public List<TakenBack> sweepUnregistered(int shard, String reasonSuffix) {
    Set<String> now = new HashSet<>(inspector.unregisteredConsumers(broker.keys().shard(shard)));
    Set<String> before = unregisteredLastSweep.getOrDefault(shard, Set.of());
    List<TakenBack> out = new ArrayList<>();
    for (String consumer : now) {
      if (before.contains(consumer)) {
        out.add(new TakenBack(consumer, Cause.UNREGISTERED, broker.consumerRegistry().requeueInFlight(shard, consumer,
            RequeueMode.GONE, "in-flight list of unregistered consumer " + consumer
                + reasonSuffix, poisonPillAfter)));
      }
    }
    unregisteredLastSweep.put(shard, now);
    return out;
  }

  /** How many unregistered lists the last sweep saw (taken back or not). */
  public int unregisteredSeen() {
    return unregisteredLastSweep.values().stream().mapToInt(Set::size).sum();
  }

  /**
   * Takes back every list of the consumers whose id starts with {@code consumerPrefix} (all
   * consumers of one worker process), unconditionally: the caller knows that process is gone.
   * After a crash the unregistered lists are looked for too (a consumer can hold a claim before
   * it registers); that walks the keyspace, so not after a clean exit, which leaves none. When
   * the worker left a crash record ({@code crashRecord}: consumer id -> what its slot says, for
   * the slots that say anything), it decides what was running, and what it says had finished is
   * acknowledged; else the running marks decide.
   */
  public List<TakenBack> processGone(String consumerPrefix, String reason, boolean crashed,
      Optional<Map<String, RunningFile.Slot>> crashRecord) {
    Set<String> consumers = new HashSet<>();
    for (String c : broker.consumerRegistry().consumers()) {
      if (c.startsWith(consumerPrefix)) {
        consumers.add(c);
      }
    }
    if (crashed) {
      for (String c : inspector.unregisteredConsumers()) {
        if (c.startsWith(consumerPrefix)) {
          consumers.add(c);
        }
      }
    }
    List<TakenBack> out = new ArrayList<>();
    for (String consumer : consumers) {
      RunningFile.Slot slot = crashRecord.map(m -> m.get(consumer)).orElse(null);
      Requeued r = crashRecord.isPresent()
          ? broker.consumerRegistry().requeueInFlight(consumer, RequeueMode.GONE, reason, poisonPillAfter,
              Optional.ofNullable(slot == null ? null : slot.running()),
              slot == null ? List.of() : slot.finished())
          : broker.consumerRegistry().requeueInFlight(consumer, RequeueMode.GONE, reason, poisonPillAfter);
      out.add(new TakenBack(consumer, Cause.PROCESS_GONE, r));
    }
    return out;
  }

  /** The jobs a list of take-backs moved. */
  public static int taken(List<TakenBack> takenBack) {
    return takenBack.stream().mapToInt(t -> t.result().taken()).sum();
  }
}

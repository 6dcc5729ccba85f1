package dev.delayq.redis;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.args.ListDirection;

/**
 * The hot path of the Redis contract: one typed method per script (plus the blocking claim),
 * used by producers, the scheduler, workers and the supervisor's recovery. Thread-safe; each
 * call borrows a pooled connection.
 */
public final class RedisBroker {
  private final UnifiedJedis redis;
  private final Keys keys;
  private final Scripts scripts;

  /** A broker on a bare client: no replica acks (tests, tools). */
  public RedisBroker(UnifiedJedis redis, Keys keys) {
    this(redis, keys, new Scripts(redis));
  }

  /** A broker on a process's connection, with its replica acks and master following. */
  public RedisBroker(RedisConnection redis, Keys keys) {
    this(redis.client(), keys, new Scripts(redis));
  }

  private RedisBroker(UnifiedJedis redis, Keys keys, Scripts scripts) {
    this.redis = redis;
    this.keys = keys;
    this.scripts = scripts;
  }

  public Keys keys() {
    return keys;
  }

  public UnifiedJedis redis() {
    return redis;
  }

  public Scripts scripts() {
    return scripts;
  }

  // ---- producers ------------------------------------------------------------------------

  /** Due time of an accepted job; {@link #duplicate()} when its id already existed. */
  public record Enqueued(boolean accepted, long dueAt) {
    public boolean duplicate() {
      return !accepted;
    }
  }

  /** One job as {@link Script#ENQUEUE} takes it; {@code when} is a delay or a due time. */
  public record NewJob(String id, String recordHead, String payloadJson, long when, boolean absolute) {}

  /** Jobs per script call in {@link #enqueueAll}: amortises the call, keeps each call short. */
  private static final int JOBS_PER_CALL = 100;

  public Enqueued enqueue(NewJob job) {
    List<?> r = (List<?>) scripts.eval(Script.ENQUEUE, enqueueKeys(), enqueueArgs(List.of(job)));
    return new Enqueued(((Long) r.get(0)) == 1L, (Long) r.get(1));
  }

  /**
   * Enqueues many jobs in one pipeline (one round trip per call of this method), a hundred
   * jobs per script call.
   */
  public List<Enqueued> enqueueAll(List<NewJob> jobs) {
    List<String> keyList = enqueueKeys();
    List<Scripts.Call> calls = new ArrayList<>(jobs.size() / JOBS_PER_CALL + 1);
    for (int from = 0; from < jobs.size(); from += JOBS_PER_CALL) {
      calls.add(new Scripts.Call(keyList,
          enqueueArgs(jobs.subList(from, Math.min(jobs.size(), from + JOBS_PER_CALL)))));
    }
    List<Enqueued> out = new ArrayList<>(jobs.size());
    for (Object reply : scripts.evalPipelined(Script.ENQUEUE, calls)) {
      List<?> r = (List<?>) reply;
      for (int i = 0; i + 1 < r.size(); i += 2) {
        out.add(new Enqueued(((Long) r.get(i)) == 1L, (Long) r.get(i + 1)));
      }
    }
    return out;
  }

  private List<String> enqueueKeys() {
    return List.of(keys.jobs(), keys.delayed(), keys.ready(), keys.wake(), keys.stats());
  }

  private static List<String> enqueueArgs(List<NewJob> jobs) {
    List<String> args = new ArrayList<>(jobs.size() * 5);
    for (NewJob j : jobs) {
      args.add(j.id());
      args.add(j.recordHead());
      args.add(j.payloadJson());
      args.add(Long.toString(j.when()));
      args.add(j.absolute() ? "at" : "delay");
    }
    return args;
  }

  /** True when the job was delayed or ready and is now gone. */
  public boolean cancel(String id) {
    Object r = scripts.eval(Script.CANCEL, List.of(keys.jobs(), keys.delayed(), keys.ready()), List.of(id));
    return ((Long) r) == 1L;
  }

  // ---- scheduler -------------------------------------------------------------------------

  /** What one forward call did; {@code nextDueAt} is empty when nothing is delayed. */
  public record Forwarded(int moved, OptionalLong nextDueAt, long redisNow) {}

  public Forwarded moveDueToReady(int limit) {
    List<?> r = (List<?>) scripts.eval(Script.MOVE_DUE_TO_READY,
        List.of(keys.delayed(), keys.ready()), List.of(Integer.toString(limit)));
    long next = (Long) r.get(1);
    return new Forwarded(((Long) r.get(0)).intValue(),
        next < 0 ? OptionalLong.empty() : OptionalLong.of(next), (Long) r.get(2));
  }

  /** Blocks up to {@code timeoutSeconds} for a wake token; true when one came. */
  public boolean awaitWake(double timeoutSeconds) {
    return redis.blpop(timeoutSeconds, keys.wake()) != null;
  }

  public boolean holdLease(String owner, long ttlMs) {
    return ((Long) scripts.eval(Script.HOLD_LEASE, List.of(keys.leader()),
        List.of(owner, Long.toString(ttlMs)))) == 1L;
  }

  public boolean releaseLease(String owner) {
    return ((Long) scripts.eval(Script.RELEASE_LEASE, List.of(keys.leader()), List.of(owner))) == 1L;
  }

  /** Consumers whose heartbeat expiry is at or before {@code redisNowMs}. */
  public List<String> expiredConsumers(long redisNowMs, int limit) {
    return redis.zrangeByScore(keys.consumers(), "-inf", Long.toString(redisNowMs), 0, limit);
  }

  /** All registered consumers, alive or not. */
  public List<String> consumers() {
    return redis.zrange(keys.consumers(), 0, -1);
  }

  /** The result of taking back a consumer's jobs. */
  public record Requeued(int requeued, int deadLettered, boolean consumerAlive) {}

  /** Why a consumer's jobs are taken back: it went silent, or its process is known to be gone. */
  public enum RequeueMode {
    EXPIRED("expired"), GONE("gone");

    private final String arg;

    RequeueMode(String arg) {
      this.arg = arg;
    }
  }

  /**
   * Takes back every in-flight job of {@code consumerId} (in bounded batches), each with
   * attempt + 1; past its attempts or the poison-pill limit a job goes to dead.
   */
  public Requeued requeueInFlight(String consumerId, RequeueMode mode, String reason, int poisonAt) {
    int requeued = 0;
    int dead = 0;
    List<String> keyList = List.of(keys.inFlight(consumerId), keys.consumers(), keys.jobs(),
        keys.ready(), keys.dead());
    List<String> args = List.of(consumerId, "1000", mode.arg, reason, Integer.toString(poisonAt));
    while (true) {
      List<?> r = (List<?>) scripts.eval(Script.REQUEUE_IN_FLIGHT, keyList, args);
      long first = (Long) r.get(0);
      if (first < 0) {
        return new Requeued(requeued, dead, true);
      }
      requeued += (int) first;
      dead += ((Long) r.get(1)).intValue();
      if ((Long) r.get(2) == 0L) {
        return new Requeued(requeued, dead, false);
      }
    }
  }

  /**
   * Takes back the jobs of every consumer whose id starts with {@code consumerPrefix} (all
   * consumers of one worker process), unconditionally: the caller knows that process is gone.
   */
  public Requeued requeueConsumersOf(String consumerPrefix, String reason, int poisonAt) {
    int requeued = 0;
    int dead = 0;
    for (String consumer : consumers()) {
      if (consumer.startsWith(consumerPrefix)) {
        Requeued r = requeueInFlight(consumer, RequeueMode.GONE, reason, poisonAt);
        requeued += r.requeued();
        dead += r.deadLettered();
      }
    }
    return new Requeued(requeued, dead, false);
  }

  // ---- workers ---------------------------------------------------------------------------

  /** A claimed job: its id and raw record (null when the id had no record and was dropped). */
  public record Claimed(String id, String rawRecord) {}

  /**
   * Waits up to {@code timeoutSeconds} for a due job and moves it atomically into the
   * consumer's in-flight list (BLMOVE), then reads its record and re-registers the consumer.
   */
  public Optional<Claimed> claim(String consumerId, double timeoutSeconds, long heartbeatTtlMs) {
    String id = redis.blmove(keys.ready(), keys.inFlight(consumerId), ListDirection.RIGHT,
        ListDirection.LEFT, timeoutSeconds);
    if (id == null) {
      return Optional.empty();
    }
    Object raw;
    try {
      raw = scripts.eval(Script.CLAIM,
          List.of(keys.jobs(), keys.inFlight(consumerId), keys.consumers()),
          List.of(id, consumerId, Long.toString(heartbeatTtlMs)));
    } catch (ReplicaAcksException e) {
      throw giveBackUnconfirmed(consumerId, List.of(id), e);
    }
    return Optional.of(new Claimed(id, raw instanceof String s ? s : null));
  }

  /**
   * Takes up to {@code most} due jobs at once without blocking (a fair share: no more than
   * ready's length over the registered consumers); empty when nothing is ready.
   */
  public List<Claimed> claimReady(String consumerId, long heartbeatTtlMs, int most) {
    List<?> r;
    try {
      r = (List<?>) scripts.eval(Script.CLAIM_READY,
          List.of(keys.ready(), keys.inFlight(consumerId), keys.jobs(), keys.consumers()),
          List.of(consumerId, Long.toString(heartbeatTtlMs), Integer.toString(most)));
    } catch (ReplicaAcksException e) {
      List<String> ids = new ArrayList<>();
      List<?> claimed = (List<?>) e.replies().get(0);
      for (int i = 0; i + 1 < claimed.size(); i += 2) {
        ids.add((String) claimed.get(i));
      }
      throw giveBackUnconfirmed(consumerId, ids, e);
    }
    List<Claimed> out = new ArrayList<>(r.size() / 2);
    for (int i = 0; i + 1 < r.size(); i += 2) {
      out.add(new Claimed((String) r.get(i), r.get(i + 1) instanceof String s ? s : null));
    }
    return out;
  }

  /**
   * A claim whose replicas did not confirm it is not run: a failover could bring back the jobs
   * in ready, to run a second time elsewhere. They go back to ready here (on a master that lost
   * its replicas the give-back is not confirmed either, and that is fine: the new master never
   * had the claim). Returns the exception to throw.
   */
  private ReplicaAcksException giveBackUnconfirmed(String consumerId, List<String> ids,
      ReplicaAcksException e) {
    try {
      releaseClaimed(consumerId, ids);
    } catch (ReplicaAcksException expected) {
      // applied on this server; the give-back is as durable as the claim was
    } catch (RuntimeException other) {
      e.addSuppressed(other);
    }
    return e;
  }

  /**
   * Gives back claimed jobs that never started (draining): to ready, to run next, with no
   * attempt or lost delivery counted. Returns how many were still in the consumer's list.
   */
  public int releaseClaimed(String consumerId, List<String> ids) {
    if (ids.isEmpty()) {
      return 0;
    }
    return ((Long) scripts.eval(Script.RELEASE_CLAIMED,
        List.of(keys.inFlight(consumerId), keys.ready()), ids)).intValue();
  }

  /** The ids in a consumer's in-flight list, oldest claim last. */
  public List<String> inFlightIds(String consumerId) {
    return redis.lrange(keys.inFlight(consumerId), 0, -1);
  }

  /** True when acknowledged; false when fenced (the job was taken back from this consumer). */
  public boolean ack(String consumerId, String id) {
    return ackAll(consumerId, List.of(id))[0];
  }

  /** Acknowledges several jobs of one consumer in one call; false where fenced. */
  public boolean[] ackAll(String consumerId, List<String> ids) {
    List<?> r = (List<?>) scripts.eval(Script.ACK, List.of(keys.inFlight(consumerId), keys.jobs()), ids);
    boolean[] acked = new boolean[r.size()];
    for (int i = 0; i < acked.length; i++) {
      acked[i] = ((Long) r.get(i)) == 1L;
    }
    return acked;
  }

  /**
   * Acknowledges the jobs of several consumers in one pipeline (one script call per consumer);
   * returns, per consumer, false where fenced.
   */
  public Map<String, boolean[]> ackAll(Map<String, List<String>> idsByConsumer) {
    List<String> consumers = new ArrayList<>(idsByConsumer.keySet());
    List<Scripts.Call> calls = new ArrayList<>(consumers.size());
    for (String c : consumers) {
      calls.add(new Scripts.Call(List.of(keys.inFlight(c), keys.jobs()), idsByConsumer.get(c)));
    }
    List<Object> replies = scripts.evalPipelined(Script.ACK, calls);
    Map<String, boolean[]> out = new LinkedHashMap<>();
    for (int i = 0; i < consumers.size(); i++) {
      List<?> r = (List<?>) replies.get(i);
      boolean[] acked = new boolean[r.size()];
      for (int k = 0; k < acked.length; k++) {
        acked[k] = ((Long) r.get(k)) == 1L;
      }
      out.put(consumers.get(i), acked);
    }
    return out;
  }

  /** What a move to delayed did. */
  public enum Moved { MOVED, FENCED, MALFORMED }

  public Moved retry(String consumerId, String id, long delayMs, String error) {
    return moveToDelayed(consumerId, id, delayMs, "retry", error);
  }

  public Moved reschedule(String consumerId, String id, long delayMs) {
    return moveToDelayed(consumerId, id, delayMs, "reschedule", "");
  }

  private Moved moveToDelayed(String consumerId, String id, long delayMs, String mode, String error) {
    long r = (Long) scripts.eval(Script.MOVE_TO_DELAYED,
        List.of(keys.inFlight(consumerId), keys.jobs(), keys.delayed(), keys.wake()),
        List.of(id, Long.toString(delayMs), mode, error));
    return r > 0 ? Moved.MOVED : r == 0 ? Moved.FENCED : Moved.MALFORMED;
  }

  /** True when dead-lettered; false when fenced. */
  public boolean deadLetter(String consumerId, String id, String error) {
    return ((Long) scripts.eval(Script.DEAD_LETTER,
        List.of(keys.inFlight(consumerId), keys.jobs(), keys.dead()), List.of(id, error))) == 1L;
  }

  public void heartbeat(List<String> consumerIds, long ttlMs) {
    List<String> args = new ArrayList<>(consumerIds.size() + 1);
    args.add(Long.toString(ttlMs));
    args.addAll(consumerIds);
    scripts.eval(Script.HEARTBEAT, List.of(keys.consumers()), args);
  }
}

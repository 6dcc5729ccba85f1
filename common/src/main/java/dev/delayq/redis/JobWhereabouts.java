package dev.delayq.redis;

import java.util.Optional;
import redis.clients.jedis.AbstractTransaction;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;

/** Where one job is now, and how a job whose id is still taken ended ({@link Admin#inspect}). */
final class JobWhereabouts {
  private final UnifiedJedis redis;
  private final Keys keys;
  private final RedisBroker broker;
  private final Inspector inspector;
  private final Scripts scripts;

  JobWhereabouts(UnifiedJedis redis, Keys keys, RedisBroker broker, Inspector inspector) {
    this.redis = redis;
    this.scripts = new Scripts(redis);
    this.keys = keys;
    this.broker = broker;
    this.inspector = inspector;
  }

  /** The job's state and record; empty when Redis knows nothing of the id. */
  Optional<Admin.JobView> inspect(String id) {
    Keys keys = this.keys.shardOf(id);
    JobPlaces places = broker.jobPlaces(id, inspector.inFlightKeys(keys));
    String raw = places.rawRecord();
    Double delayedAt = places.delayedAt();
    Long readyPos = places.readyPosition();
    Double deadAt = places.deadAt();
    String consumer = places.consumer();
    Admin.State state = delayedAt != null ? Admin.State.DELAYED : readyPos != null ? Admin.State.READY
        : consumer != null ? Admin.State.IN_FLIGHT : deadAt != null ? Admin.State.DEAD
        : places.waiting() != null ? Admin.State.WAITING : raw != null ? Admin.State.ORPHAN : null;
    // kept for the id retention however the job ended, so a job whose record is gone still tells
    Workflows.KeptResult result = broker.workflows().result(id).orElse(null);
    if (state == null) {
      Optional<Admin.Ended> ended = ended(id);
      if (ended.isEmpty() && result == null) {
        return Optional.empty();
      }
      return Optional.of(new Admin.JobView(id, Admin.State.ENDED, null, 0, null, 0, 0, "?", null, null,
          ended.orElse(null), null, result));
    }
    JobRecord r = null;
    if (raw != null) {
      try {
        r = JobRecord.parse(id, raw);
      } catch (JobRecord.MalformedRecordException e) {
        r = null;
      }
    }
    if (state == Admin.State.ORPHAN && r != null && ListSearch.find(scripts, keys.held(r.type()), id, 0) != null) {
      // flow control holds it: paused, or its type at its concurrency cap (held grows while its
      // type is paused, so it is searched a bounded stretch a call)
      state = Admin.State.HELD;
    } else if (state == Admin.State.ORPHAN && r != null && broker.handlerWait().isWaiting(id, r.type())) {
      state = Admin.State.WAITING_FOR_HANDLER; // no live worker it reached had its type's handler
    }
    String lastError = r != null ? r.lastError() : raw == null ? null : DeadJobActions.deadJob(id, 0, raw).lastError();
    // a waiting job's record holds the due time it was enqueued with; it falls due only when released
    long due = delayedAt != null ? delayedAt.longValue() : state == Admin.State.WAITING || r == null ? 0 : r.dueAt();
    return Optional.of(new Admin.JobView(id, state, state == Admin.State.IN_FLIGHT ? consumer : null, due,
        deadAt == null ? null : deadAt.longValue(), r == null ? 0 : r.attempt(),
        r == null ? 0 : r.maxAttempts(), r == null ? "?" : r.type(), lastError, raw, null,
        state == Admin.State.WAITING ? waiting(places) : null, result));
  }

  /** A waiting job's entry '<policy>:<delay ms>:<since ms>' (include/workflow.lua) and what it still waits for. */
  private static Admin.Waiting waiting(JobPlaces places) {
    String[] parts = places.waiting().split(":", 3);
    return new Admin.Waiting(places.waitingFor(), number(parts, 2), number(parts, 1), parts[0]);
  }

  /** Part {@code i} of a waiting entry as a number; 0 when missing or not one (another client wrote it). */
  private static long number(String[] parts, int i) {
    try {
      return parts.length > i ? Long.parseLong(parts[i]) : 0;
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /** The end of a job whose id is still taken; empty when none is remembered or its window passed. */
  private Optional<Admin.Ended> ended(String id) {
    Keys keys = this.keys.shardOf(id);
    Response<String> outcome;
    Response<Double> freeAt;
    try (AbstractTransaction tx = Slots.multi(redis, keys.ended())) {
      outcome = tx.hget(keys.ended(), id);
      freeAt = tx.zscore(keys.endedExpiry(), id);
      tx.exec();
    }
    if (outcome.get() == null || freeAt.get() == null || freeAt.get() <= broker.redisNowMs()) {
      return Optional.empty();
    }
    int colon = outcome.get().lastIndexOf(':');
    long at = colon < 0 ? 0 : Long.parseLong(outcome.get().substring(colon + 1));
    String how = colon < 0 ? outcome.get() : outcome.get().substring(0, colon);
    return Optional.of(new Admin.Ended(how, at, freeAt.get().longValue()));
  }
}

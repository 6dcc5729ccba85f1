package dev.delayq;

import dev.delayq.config.DelayqConfig;
import dev.delayq.config.JobTypes;
import dev.delayq.redis.DueChange;
import dev.delayq.redis.Enqueued;
import dev.delayq.redis.Keys;
import dev.delayq.redis.NewJob;
import dev.delayq.redis.PendingChange;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisConnection;
import dev.delayq.redis.RedisConnector;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The producer API: puts jobs on a queue to run after a delay or at an instant. Due times
 * are computed from the Redis server's clock (for delays), so producers with skewed clocks
 * still get their jobs on time. Thread-safe.
 *
 * <pre>{@code
 * try (DelayQueue queue = DelayQueue.connect(ConfigLoader.fromEnvironment())) {
 *   queue.delay("order_close", Map.of("order_id", 1001), Duration.ofMinutes(30),
 *       JobOptions.withId("order-1001"));
 * }
 * }</pre>
 *
 * <p>Workflows (docs/workflows.md): jobs that wait for others ({@link JobOptions#waitFor}),
 * {@link #chain}, {@link #fanIn}, batches with a callback that fires once ({@link #openBatch}), and
 * results kept by id ({@link #result}). They need {@code queue.shards: 1}. They go to Redis at
 * once, also inside a transaction whose plain enqueues an {@link EnqueueGate} holds until the
 * commit: a rollback does not take them back.
 */
public final class DelayQueue implements AutoCloseable {
  private static final int BATCH = 5_000;

  private final RedisBroker broker;
  private final Payloads payloads;
  private final NewJobs newJobs;
  private final RedisConnection owned;
  private final EnqueueBatcher batcher;
  private final Listener listener;
  /** When enqueues go out: now, or (the Spring starter's, in a transaction) after the commit. */
  private final EnqueueGate gate;
  /** Workflows' enqueues (batches, waits, chains, fan-ins): ordinary jobs never go there. */
  private final Flows flows;

  /** Told of each job this producer enqueued, on the enqueuing thread (the Spring starter's meters). */
  public interface Listener {
    void enqueued(JobRequest request, EnqueueResult result);
  }

  /** Connects to the configured Redis and queue; {@link #close()} closes the connections. */
  public static DelayQueue connect(DelayqConfig config) {
    return connect(config, config.redisUrl());
  }

  /**
   * Connects to the queue of {@code config} on the Redis at {@code redisUrl}: for the embedded
   * Redis of a supervisor on this host, {@code EmbeddedRedisPassword.connectUrl(config, home)}.
   */
  public static DelayQueue connect(DelayqConfig config, String redisUrl) {
    RedisConnection redis = RedisConnector.connect(config, redisUrl, "delayq-producer", 16);
    try {
      redis.checkServer(config.redis().requireNoeviction());
      RedisBroker broker = new RedisBroker(redis,
          Keys.of(config)).withLimits(config);
      broker.prepare();
      return new DelayQueue(broker, config.queue().maxPayloadBytes(),
          config.retry().maxAttempts(), redis, null, JobIds::newId, EnqueueGate.NOW);
    } catch (RuntimeException e) {
      redis.close();
      throw e;
    }
  }

  /** A producer over an existing broker (its connections stay the caller's). */
  public DelayQueue(RedisBroker broker, int maxPayloadBytes, int defaultMaxAttempts) {
    this(broker, maxPayloadBytes, defaultMaxAttempts, null, null, JobIds::newId, EnqueueGate.NOW);
  }

  /** A producer over an existing broker that tells {@code listener} of each job it enqueued. */
  public DelayQueue(RedisBroker broker, int maxPayloadBytes, int defaultMaxAttempts, Listener listener) {
    this(broker, maxPayloadBytes, defaultMaxAttempts, null, listener, JobIds::newId, EnqueueGate.NOW);
  }

  /**
   * A producer over an existing broker whose enqueues go out when {@code gate} lets them (the
   * Spring starter's holds them until the commit of the transaction they are made in).
   */
  public DelayQueue(RedisBroker broker, int maxPayloadBytes, int defaultMaxAttempts, Listener listener,
      EnqueueGate gate) {
    this(broker, maxPayloadBytes, defaultMaxAttempts, null, listener, JobIds::newId, gate);
  }

  /** A producer whose generated ids come from {@code ids} (tests: an id that meets a stored job's). */
  DelayQueue(RedisBroker broker, int maxPayloadBytes, int defaultMaxAttempts, Supplier<String> ids) {
    this(broker, maxPayloadBytes, defaultMaxAttempts, null, null, ids, EnqueueGate.NOW);
  }

  private DelayQueue(RedisBroker broker, int maxPayloadBytes, int defaultMaxAttempts,
      RedisConnection owned, Listener listener, Supplier<String> ids, EnqueueGate gate) {
    this.gate = Objects.requireNonNull(gate, "gate");
    this.broker = broker;
    this.payloads = new Payloads(maxPayloadBytes);
    this.newJobs = new NewJobs(payloads, defaultMaxAttempts, ids);
    this.owned = owned;
    this.batcher = new EnqueueBatcher(broker);
    this.listener = listener;
    this.flows = new Flows(this, broker.workflows());
  }

  /**
   * Runs a job of {@code type} once {@code delay} has passed (by the Redis server's clock). A
   * delay past the range of due times ({@link DueTime}: 9999-12-31T23:59:59.999Z) is refused.
   */
  public EnqueueResult delay(String type, Object payload, Duration delay) {
    return delay(type, payload, delay, JobOptions.defaults());
  }

  public EnqueueResult delay(String type, Object payload, Duration delay, JobOptions options) {
    return enqueue(new JobRequest(type, payload, delay, null, options));
  }

  /**
   * Runs a job of {@code type} at {@code at} (at once when that is past). An instant outside the
   * range of due times ({@link DueTime}: from the epoch to 9999-12-31T23:59:59.999Z) is refused.
   */
  public EnqueueResult schedule(String type, Object payload, Instant at) {
    return schedule(type, payload, at, JobOptions.defaults());
  }

  public EnqueueResult schedule(String type, Object payload, Instant at, JobOptions options) {
    return enqueue(new JobRequest(type, payload, null, at, options));
  }

  /**
   * Enqueues one job. Concurrent calls from many threads are sent together in one script
   * call, each caller still getting its own result. With {@code redis.replicaAcks} it returns
   * once that many replicas have the job, and throws {@link dev.delayq.redis.ReplicaAcksException}
   * when they did not confirm it in time: the job may or may not survive a failover then, so
   * enqueue it again with the same id (a second enqueue of a stored id changes nothing). Held by
   * this producer's {@link EnqueueGate}, it sends nothing and answers PENDING_COMMIT. A job whose
   * options wait for other jobs or make it awaitable goes through the workflow script instead, at
   * once (the gate does not hold it), and may answer WAITING or DEPENDENCY_FAILED.
   */
  public EnqueueResult enqueue(JobRequest request) {
    if (request.options().inWorkflow()) {
      return flows.enqueue(null, List.of(request)).get(0);
    }
    NewJob job = newJobs.prepare(request);
    if (held(List.of(request), List.of(job))) {
      return EnqueueResult.pendingCommit(job.id());
    }
    return settled(request, job, batcher.enqueue(job), batcher::enqueue);
  }

  /**
   * Enqueues many jobs, pipelined in batches of 5,000 (one round trip each). Every request is
   * checked before anything is sent, so a bad one rejects the whole call and enqueues nothing.
   * Held by this producer's {@link EnqueueGate}, it sends nothing and answers PENDING_COMMIT for each.
   * Jobs with workflow options ({@link JobOptions#waitFor}, {@link JobOptions#awaitable()}) go, in
   * the order of the call, through the workflow script in calls of up to 1,000, at once; the plain
   * ones of the call as above. A wait that Redis refuses (an unknown job) refuses its call of the
   * script whole, and the calls before it stay enqueued.
   */
  public List<EnqueueResult> enqueueAll(List<JobRequest> requests) {
    for (JobRequest r : requests) {
      if (r.options().inWorkflow()) {
        return flows.enqueueMixed(requests);
      }
    }
    List<NewJob> jobs = new ArrayList<>(requests.size());
    for (int i = 0; i < requests.size(); i++) {
      try {
        jobs.add(newJobs.prepare(requests.get(i)));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("job " + i + " of the batch: " + e.getMessage(), e);
      }
    }
    if (held(requests, jobs)) {
      return jobs.stream().map(j -> EnqueueResult.pendingCommit(j.id())).toList();
    }
    return sendHeld(requests, jobs);
  }

  /** True when the gate keeps these jobs to send later (never asked when it is NOW: the hot path). */
  boolean held(List<JobRequest> requests, List<NewJob> jobs) {
    return gate != EnqueueGate.NOW && gate.hold(new HeldJobs(this, requests, jobs));
  }

  /**
   * Sends prepared jobs, pipelined in batches of 5,000: an enqueueAll's, or those a gate held.
   * A batch goes in script calls of 100 cut in due order (RedisBroker.enqueueAll): the more jobs
   * a round trip holds, the closer the due times of a call's jobs and the more of its adds share
   * a bucket of the time wheel (Redis CPU per job, 100,000 jobs due over 60 s: 12.9 µs in round
   * trips of 1,000, 10.3 µs in round trips of 5,000). Each script call stays as short as before.
   */
  List<EnqueueResult> sendHeld(List<JobRequest> requests, List<NewJob> jobs) {
    List<EnqueueResult> results = new ArrayList<>(jobs.size());
    for (int from = 0; from < jobs.size(); from += BATCH) {
      List<NewJob> slice = jobs.subList(from, Math.min(jobs.size(), from + BATCH));
      List<Enqueued> replies = broker.enqueueAll(slice);
      for (int k = 0; k < slice.size(); k++) {
        // a collided one goes again alone: one in 2^72 per stored job
        results.add(settled(requests.get(from + k), slice.get(k), replies.get(k), broker::enqueue));
      }
    }
    return results;
  }

  /**
   * The result of {@code job}'s enqueue, which answered {@code e}: a generated id that met a
   * stored job's is sent again under a new one through {@code again}, until one is free.
   */
  EnqueueResult settled(JobRequest request, NewJob job, Enqueued e, Function<NewJob, Enqueued> again) {
    while (request.options().id() == null && JobIds.collided(e)) {
      job = newJobs.withNewId(job);
      e = again.apply(job);
    }
    EnqueueResult result = NewJobs.result(job.id(), e);
    if (listener != null) {
      listener.enqueued(request, result);
    }
    return result;
  }

  /** What {@link #cancelEvenIfRunning} did. */
  public enum Cancel {
    /** It was delayed or ready, and is gone. */
    CANCELLED,
    /** It is running: its worker was asked to interrupt it; it ends as cancelled, not retried. */
    INTERRUPTING,
    /** It is dead (purge it with dead purge). */
    DEAD,
    /** No such job (never enqueued, or already done). */
    UNKNOWN
  }

  /**
   * Withdraws a pending job, or asks the worker running it to stop it: the handler's thread is
   * interrupted and {@link dev.delayq.job.JobContext#isCancelled()} turns true; once the handler
   * returns or throws the job ends as cancelled, not retried. A handler that ignores it is
   * treated as one past its time limit.
   */
  public Cancel cancelEvenIfRunning(String id) {
    Objects.requireNonNull(id, "id");
    for (int i = 0; i < 3; i++) {
      if (broker.cancel(id)) {
        return Cancel.CANCELLED;
      }
      switch (broker.requestCancel(id)) {
        case ASKED:
          return Cancel.INTERRUPTING;
        case DEAD:
          return Cancel.DEAD;
        case UNKNOWN:
          return Cancel.UNKNOWN;
        default:
          // it became pending in between (a retry): cancel it as such
      }
    }
    return broker.cancel(id) ? Cancel.CANCELLED : Cancel.UNKNOWN;
  }

  /**
   * Opens a batch under a generated id. Its jobs are added with {@link Batch#add}, its callbacks
   * given at {@link Batch#close}.
   */
  public Batch openBatch() {
    return openBatch(newJobs.newId());
  }

  /**
   * Opens a batch under {@code id} (1 to 128 of the characters a job id may hold).
   * IllegalStateException when a batch with this id exists (or finished within the id retention).
   */
  public Batch openBatch(String id) {
    Batch batch = new Batch(this, flows, id);
    flows.workflows().openBatch(id);
    return batch;
  }

  /**
   * A handle to the existing batch {@code id}, without a Redis call: a running job of the batch
   * adds more jobs to it with this. An id no batch has is refused at the first add.
   */
  public Batch batch(String id) {
    return new Batch(this, flows, id);
  }

  /** The batch {@code id} as Redis keeps it; empty when never opened, or finished and forgotten. */
  public Optional<BatchStatus> batchStatus(String id) {
    Batch.checkId(id);
    return flows.workflows().batch(id).map(BatchStatus::of);
  }

  /**
   * Cancels a batch: no callback will fire, and each of its jobs that had not ended is withdrawn
   * as {@link #cancelEvenIfRunning} does (a running one is asked to stop). Its status after.
   * IllegalStateException when it finished or was cancelled already, or does not exist.
   */
  public BatchStatus cancelBatch(String id) {
    Batch.checkId(id);
    for (String pending : flows.workflows().cancelBatch(id)) {
      cancelEvenIfRunning(pending);
    }
    return batchStatus(id).orElseThrow(() -> new IllegalStateException("batch " + id + " is forgotten"));
  }

  /**
   * Enqueues {@code steps} as a chain: each step waits for the one before it (and for the jobs
   * its own options wait for, with its own {@link DependencyFailure} policy), all in one call, so
   * a bad step enqueues nothing. Ids are generated where a step has none. Every step after the
   * first takes a delay, counted from the end of the step before.
   */
  public List<EnqueueResult> chain(JobRequest... steps) {
    return flows.chain(steps);
  }

  /**
   * Enqueues {@code children} and a {@code parent} that waits for all of them (and for what its own
   * options wait for), in one call: a bad one enqueues nothing. Past 1,000 jobs they go in calls of
   * 1,000, children first and the parent last, so that a refusal in a later call leaves the calls
   * before it enqueued: it is then not all-or-nothing.
   */
  public FanIn fanIn(List<JobRequest> children, JobRequest parent) {
    return flows.fanIn(children, parent);
  }

  /**
   * How the job {@code id} ended and its result, kept for the id retention (24 h when ids are not
   * kept) for every job of a workflow and every job that gave a result; empty while it has not
   * ended, or when unknown.
   */
  public Optional<JobOutcome> result(String id) {
    Objects.requireNonNull(id, "id");
    return flows.workflows().result(id)
        .map(r -> new JobOutcome(r.id(), r.outcome(), Instant.ofEpochMilli(r.endedAt()), r.json()));
  }

  /** The recurring schedules of this queue. */
  public Schedules schedules() {
    return new Schedules(broker, payloads);
  }

  /** Withdraws a job; true while it was still delayed or ready (false once it started). */
  public boolean cancel(String id) {
    Objects.requireNonNull(id, "id");
    return broker.cancel(id);
  }

  /**
   * Runs a job that has not started now: due now, at the end of ready that consumers take next.
   * Its attempts and last error are kept. Refused (nothing changes) when it is running, dead or
   * unknown: {@link ChangeResult#status()} says which.
   */
  public ChangeResult promote(String id) {
    return change(id, DueChange.NOW, 0, null);
  }

  /**
   * Makes a job that has not started due {@code delay} from now (Redis clock); as {@link #promote}.
   * A delay past the range of due times ({@link DueTime}) is refused.
   */
  public ChangeResult reschedule(String id, Duration delay) {
    return change(id, DueChange.DELAY, DueTime.delayMs(delay), null);
  }

  /**
   * Makes a job that has not started due at {@code at} (ready at once when past); as
   * {@link #promote}. An instant outside the range of due times ({@link DueTime}) is refused.
   */
  public ChangeResult reschedule(String id, Instant at) {
    return change(id, DueChange.AT, DueTime.atMs(at), null);
  }

  /**
   * Replaces the payload of a job that has not started (checked as at enqueue: JSON, size limit);
   * its due time and attempts stay. As {@link #promote} otherwise.
   */
  public ChangeResult editPayload(String id, Object payload) {
    return change(id, DueChange.KEEP, 0, payloads.toJson(payload));
  }

  private ChangeResult change(String id, DueChange due, long amount, String payloadJson) {
    Objects.requireNonNull(id, "id");
    PendingChange c = broker.changePending(id, due, amount, payloadJson);
    return ChangeResult.of(id, c.place(), c.dueAt());
  }

  /** Refuses an empty or malformed job type with a message naming it. */
  public static void checkType(String type) {
    if (type == null || type.isEmpty()) {
      throw new IllegalArgumentException("job type is empty");
    }
    if (!JobTypes.isValid(type)) {
      throw new IllegalArgumentException("job type '" + type
          + "' is not valid: use 1 to 64 of the characters a-z 0-9 _ . : -");
    }
  }

  /** What turns this producer's requests into jobs, and the scripts' answers into results. */
  NewJobs newJobs() {
    return newJobs;
  }

  @Override
  public void close() {
    batcher.close();
    if (owned != null) {
      owned.close();
    }
  }
}

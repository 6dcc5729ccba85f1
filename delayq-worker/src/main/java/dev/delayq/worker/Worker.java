package dev.delayq.worker;

import dev.delayq.config.DelayqConfig;
import dev.delayq.job.JobHandler;
import dev.delayq.job.RetryPolicy;
import dev.delayq.metrics.StatsRecorder;
import dev.delayq.process.ChildEnvironment;
import dev.delayq.process.OutageLog;
import dev.delayq.process.RedisOutage;
import dev.delayq.process.RunUntilShutdown;
import dev.delayq.process.RunningFile;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisConnection;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The worker engine: C consumer threads, a heartbeat, a watchdog, the acknowledgement sender,
 * and the drain that takes back whatever is left. The worker process ({@code WorkerMain}) and an
 * in-app worker (the Spring Boot starter, the test kit) run this same engine; they differ only in
 * who tells it to stop and in what follows (the process exits, an app goes on).
 */
public final class Worker implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Worker.class);
  private static final AtomicInteger IN_APP = new AtomicInteger();

  /** Why the engine asked to be stopped on its own. */
  public enum Failure {
    /** A handler ignored its interruption: its thread is lost to the engine. */
    STUCK_HANDLER,
    /** One of its threads could not go on (the others drain). */
    THREAD_FAILED
  }

  /** Told once per failure, with why; the owner then stops the engine (quiet, then drain). */
  public interface FailureListener {
    void failed(Failure failure, String reason);
  }

  private final String name;
  private final DelayqConfig config;
  private final RedisConnection redis;
  private final HandlerRegistry handlers;
  private final RunningFile crashRecord;
  private final BooleanSupplier quiet;
  private final FailureListener listener;
  private final RedisBroker broker;
  private final List<String> consumerIds = new ArrayList<>();
  private final List<Consumer> consumers = new ArrayList<>();
  private final List<Thread> consumerThreads = new ArrayList<>();
  private final StatsRecorder stats;
  private final Finisher finisher;
  private final AckSender acks;
  private final Lease lease;
  private final OutageLog outages;
  private final AtomicReference<Failure> failure = new AtomicReference<>();
  private Heartbeat heartbeat;
  private Watchdog watchdog;
  private CancelWatch cancels;
  private volatile boolean abandonResults;
  /** Set by {@link #close} and by a failure: consumers stop claiming. */
  private final AtomicBoolean closing = new AtomicBoolean();
  private final AtomicBoolean drained = new AtomicBoolean();

  /**
   * An engine named {@code name} (its log lines and thread names) whose consumers are
   * {@code consumerPrefix} + 1..threads, running {@code handlers} on the queue of {@code config}.
   * {@code quiet} turning true makes its consumers stop claiming; {@link #drain} then waits for
   * them. {@code crashRecord} may be null (no supervisor on this host reads one).
   */
  Worker(String name, String consumerPrefix, DelayqConfig config, RedisConnection redis,
      HandlerRegistry handlers, RunningFile crashRecord, BooleanSupplier quiet, FailureListener listener) {
    this.name = name;
    this.config = config;
    this.redis = redis;
    this.handlers = handlers;
    this.crashRecord = crashRecord;
    this.quiet = () -> closing.get() || quiet.getAsBoolean();
    this.listener = listener;
    this.broker = new RedisBroker(redis, Keys.of(config))
        .withLimits(config);
    this.stats = new StatsRecorder(broker.keys());
    this.outages = new OutageLog(name);
    this.finisher = new Finisher(broker, new RedisOutage(name + "/outcomes", outages), () -> abandonResults);
    this.acks = new AckSender(broker, new RedisOutage(name + "/acks", outages), () -> abandonResults);
    this.lease = Lease.forHeartbeat(config.worker().heartbeatTtl().toNanos(),
        config.worker().heartbeatInterval().toNanos());
    for (int i = 1; i <= config.worker().threads(); i++) {
      consumerIds.add(consumerPrefix + i);
    }
  }

  /**
   * An engine for handlers that live in an application (Spring beans, a test's handlers) rather
   * than in the jars of a jobs directory: same claims, fencing, charging, heartbeats and drain.
   * Two handlers of one type, or a malformed type, are refused with an IllegalStateException.
   */
  public static Worker inApp(String name, String consumerPrefix, DelayqConfig config,
      RedisConnection redis, Collection<? extends JobHandler> handlers, BooleanSupplier quiet,
      FailureListener listener) {
    return new Worker(name, consumerPrefix, config, redis, HandlerRegistry.of(handlers), null, quiet, listener);
  }

  /**
   * An in-app engine on {@code redis} for {@code handlers}, named {@code app-N} (N counts the
   * engines of this JVM) with consumer ids {@code app-N@host:pid:1..threads}. It runs until
   * {@link #close}; after a failure (a handler that ignored its interruption, a thread that
   * cannot go on) it stops claiming, says why in the log, and {@link #failure()} tells it.
   */
  public static Worker inApp(DelayqConfig config, RedisConnection redis, Collection<? extends JobHandler> handlers) {
    String name = "app-" + IN_APP.incrementAndGet();
    String prefix = ChildEnvironment.consumerPrefix(name, ChildEnvironment.host(System.getenv()),
        ProcessHandle.current().pid());
    return inApp(name, prefix, config, redis, handlers, () -> false,
        (failure, reason) -> log.error("{}: stops claiming: {}", name, reason));
  }

  /** The consumer ids, 1..threads. */
  public List<String> consumerIds() {
    return List.copyOf(consumerIds);
  }

  /** The job types it runs, sorted, comma-separated. */
  public String types() {
    return handlers.types();
  }

  /** The failure that made it ask to be stopped, or null. */
  public Failure failure() {
    return failure.get();
  }

  /** Sends the first heartbeat, then starts the watchdog, the sender and the consumers. */
  public void start() {
    broker.prepare();
    heartbeat = new Heartbeat(broker, consumerIds, config.worker().heartbeatTtl().toMillis(),
        config.worker().heartbeatInterval().toMillis(),
        new RedisOutage(name + "/heartbeat", outages), stats, lease);
    heartbeat.start(this::cannotGoOn, config.worker().heartbeatTtl());
    watchdog = new Watchdog(config.worker().interruptGrace().toNanos(), this::onStuckHandler);
    watchdog.start(this::cannotGoOn);
    cancels = new CancelWatch(redis.client(), broker, watchdog, config.worker().heartbeatInterval(),
        config.redis().socketTimeout().dividedBy(2));
    cancels.start(() -> drained.get(), outages, name, this::cannotGoOn);
    acks.start(this::cannotGoOn);
    startConsumers();
  }

  /**
   * Once {@code quiet} holds: waits up to {@code worker.drainTimeout} for the running jobs,
   * interrupts what is still running, sends the acknowledgements of finished jobs, and takes
   * back whatever is left in its in-flight lists (only a job whose handler was running is
   * charged). Stops the heartbeat last, so nobody takes its jobs back meanwhile.
   */
  public void drain() throws InterruptedException {
    if (drained.getAndSet(true) || heartbeat == null) {
      return;  // drained already, or never started
    }
    log.info("{}: draining: no new claims; waiting up to {} ms for running jobs", name,
        config.worker().drainTimeout().toMillis());
    awaitConsumers(System.nanoTime() + config.worker().drainTimeout().toNanos());
    abandonResults = true;
    for (int i = 0; i < consumers.size(); i++) {
      if (consumerThreads.get(i).isAlive() && !consumers.get(i).isStuck()) {
        consumerThreads.get(i).interrupt();
      }
    }
    awaitConsumers(System.nanoTime() + 2_000_000_000L);
    watchdog.close();
    cancels.close();
    // acknowledgements of finished jobs land before the leftovers are taken back, or those jobs
    // would run twice
    if (!acks.flush(System.nanoTime() + 5_000_000_000L)) {
      log.warn("{}: some acknowledgements could not be sent; those jobs may run again", name);
    }
    acks.close();
    Failure f = failure.get();
    requeueOwnJobs(f == Failure.STUCK_HANDLER ? "worker " + name + " exited: a handler ignored its interruption"
        : f == Failure.THREAD_FAILED ? "worker " + name + " exited: one of its threads could not go on"
        : "worker " + name + " stopped before the job finished (drain timeout)");
    heartbeat.close();
  }

  /**
   * At a JVM exit that did not come from the drain (a handler calling System.exit): sends what
   * acknowledgements it can within a second and takes back the in-flight jobs.
   */
  public void takeBackAtExit(String reason) {
    try {
      acks.flush(System.nanoTime() + 1_000_000_000L);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    requeueOwnJobs(reason);
  }

  private void startConsumers() {
    RetryPolicy retry = new RetryPolicy(config.retry().baseDelay(), config.retry().maxDelay(),
        config.retry().jitter());
    JobRunner runner = new JobRunner(handlers, stats, config.worker().jobTimeout(), retry, config.queue().name(),
        broker::clearCancelRequest);
    Consumer.Settings settings = new Consumer.Settings(
        config.worker().pollTimeout().toMillis() / 1000.0,
        config.worker().heartbeatTtl().toMillis(), config.worker().prefetch());
    Consumer.Shared shared = new Consumer.Shared(broker, runner, watchdog, lease, acks, finisher,
        crashRecord, stats, new FailoverResync(broker, redis::masterEpoch));
    for (int slot = 0; slot < consumerIds.size(); slot++) {
      String id = consumerIds.get(slot);
      Consumer c = new Consumer(id, slot, shared, settings, quiet, () -> abandonResults);
      String threadName = name + "/consumer-" + id.substring(id.lastIndexOf(':') + 1);
      consumers.add(c);
      consumerThreads.add(RunUntilShutdown.of(threadName, c::pass).until(c::isDone)
          .riding(new RedisOutage(threadName, outages))
          .onCannotGoOn(this::cannotGoOn, config.worker().heartbeatTtl()).build().start());
    }
  }

  /** Waits until every consumer not lost in a stuck handler has finished, or the deadline. */
  private void awaitConsumers(long deadlineNanos) throws InterruptedException {
    for (int i = 0; i < consumers.size(); i++) {
      while (consumerThreads.get(i).isAlive() && !consumers.get(i).isStuck()) {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
          return;
        }
        consumerThreads.get(i).join(Math.max(1, Math.min(100, left / 1_000_000)));
      }
    }
  }

  /** Stops claiming and drains (see {@link #drain}); a second call does nothing. */
  @Override
  public void close() {
    closing.set(true);
    try {
      drain();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void onStuckHandler() {
    failure.set(Failure.STUCK_HANDLER);
    closing.set(true);
    listener.failed(Failure.STUCK_HANDLER, "a handler ignored its interruption");
  }

  /** A thread that cannot go on: the others drain, and the owner replaces the engine. */
  void cannotGoOn(Throwable t) {
    failure.compareAndSet(null, Failure.THREAD_FAILED);
    closing.set(true);
    listener.failed(Failure.THREAD_FAILED, "a thread could not go on (" + t + ")");
  }

  /**
   * Takes back whatever is still in this engine's in-flight lists: the job whose handler is
   * running (this engine knows which) counts an attempt and a lost delivery, the others go
   * back as they were.
   */
  private void requeueOwnJobs(String reason) {
    try {
      for (Consumer c : consumers) {
        String id = c.id();
        RedisBroker.Requeued r = broker.requeueInFlight(id, RedisBroker.RequeueMode.GONE, reason,
            config.worker().poisonPillAfter(), c.runningNow(), List.of());
        if (r.taken() > 0) {
          log.warn("{}: put back {} job(s): {} unstarted, uncounted; {} that was running charged "
              + "an attempt ({} to dead)", id, r.taken(), r.uncharged(), r.charged(), r.deadLettered());
        }
      }
    } catch (JedisException e) {
      log.error("{}: could not put back unfinished jobs ({}); the scheduler recovers them "
          + "when their heartbeat expires", name, e.getMessage());
    }
  }
}

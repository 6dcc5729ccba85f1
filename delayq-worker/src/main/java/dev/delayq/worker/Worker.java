package dev.delayq.worker;

import dev.delayq.config.DelayqConfig;
import dev.delayq.job.JobHandler;
import dev.delayq.process.ChildEnvironment;
import dev.delayq.process.OutageLog;
import dev.delayq.process.RedisOutage;
import dev.delayq.process.RunUntilShutdown;
import dev.delayq.process.RunningFile;
import dev.delayq.redis.HandlerWait;
import dev.delayq.redis.RedisConnection;
import dev.delayq.redis.RequeueMode;
import dev.delayq.redis.Requeued;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
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
  /** One per queue served, in worker.queues's order (one: queue.name). */
  private final List<QueueLane> lanes = new ArrayList<>();
  private final List<String> consumerIds = new ArrayList<>();
  /** Per lane, its consumer of each slot. */
  private final List<List<Consumer>> consumers = new ArrayList<>();
  /** Per slot, the thread's stuck test (one queue: its consumer's; several: any of them). */
  private final List<BooleanSupplier> stuck = new ArrayList<>();
  private final List<Thread> consumerThreads = new ArrayList<>();
  /** Per lane, its announcement of the types this worker runs. */
  private final List<HandlerAnnouncer> announcers = new ArrayList<>();
  /** Every consumer of every lane, once all are made (read by the announcers' threads). */
  private volatile List<Consumer> allConsumers = List.of();
  /** Its idle consumers' gates, one per queue of one shard. */
  private final List<IdleGate> gates = new CopyOnWriteArrayList<>();
  /** Sends its consumers' hand-offs behind slow handlers; null until its consumers start. */
  private volatile HandOffRouter handOffRouter;
  private final OutageLog outages;
  private final AtomicReference<Failure> failure = new AtomicReference<>();
  private Watchdog watchdog;
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
  public Worker(String name, String consumerPrefix, DelayqConfig config, RedisConnection redis,
      HandlerRegistry handlers, RunningFile crashRecord, BooleanSupplier quiet, FailureListener listener) {
    this.name = name;
    this.config = config;
    this.redis = redis;
    this.handlers = handlers;
    this.crashRecord = crashRecord;
    this.quiet = () -> closing.get() || quiet.getAsBoolean();
    this.listener = listener;
    this.outages = new OutageLog(name);
    for (DelayqConfig queue : config.perQueue()) {
      lanes.add(new QueueLane(name, queue, redis, outages, () -> abandonResults));
    }
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

  /**
   * Warms up its path from a claim to a handler ({@link WarmUp}: no job, no Redis), sends the
   * first heartbeat in each queue, then starts the watchdog, the cancel watches, the senders and
   * the consumers.
   */
  public void start() {
    // before the first heartbeat makes its consumers visible, so the first jobs meet warm code
    long warmUpStarted = System.nanoTime();
    QueueLane first = lanes.get(0);
    try {
      WarmUp.run(first.broker.keys(), first.config.worker().jobTimeout(), first.retryPolicy(), WarmUp.ROUNDS);
      log.debug("{}: warmed up its claim-to-handler path in {} ms", name, (System.nanoTime() - warmUpStarted) / 1_000_000);
    } catch (RuntimeException e) {
      // (the runner never throws, by its contract) a cold start is slower, not wrong
      log.warn("{}: its warm-up failed; it starts cold: {}", name, e.toString());
    }
    watchdog = new Watchdog(config.worker().interruptGrace().toNanos(), this::onStuckHandler);
    for (QueueLane lane : lanes) {
      lane.broker.prepare();
    }
    watchdog.start(this::cannotGoOn);
    for (QueueLane lane : lanes) {
      lane.start(consumerIds, watchdog, redis, drained::get, this::cannotGoOn);
      // its types, so that jobs other workers left for want of a handler come back to run here
      HandlerAnnouncer announcer = new HandlerAnnouncer(name, lane.broker.handlerWait(), handlers.typeList(),
          config.worker().heartbeatTtl(), config.worker().heartbeatInterval(), this::roomForJobs);
      announcer.start(new RedisOutage(name + "/handlers", outages), quiet);
      announcers.add(announcer);
    }
    startConsumers();
  }

  /**
   * Once {@code quiet} holds: waits up to {@code worker.drainTimeout} for the running jobs,
   * interrupts what is still running, sends the acknowledgements of finished jobs, and takes
   * back whatever is left in its in-flight lists (only a job whose handler was running is
   * charged). Stops the heartbeat last, so nobody takes its jobs back meanwhile.
   */
  public void drain() throws InterruptedException {
    if (drained.getAndSet(true) || !lanes.get(0).started()) {
      return;  // drained already, or never started
    }
    log.info("{}: draining: no new claims; waiting up to {} ms for running jobs", name,
        config.worker().drainTimeout().toMillis());
    gates.forEach(IdleGate::wakeAll); // parked consumers see that they are to be quiet now
    awaitConsumers(System.nanoTime() + config.worker().drainTimeout().toNanos());
    abandonResults = true;
    for (int i = 0; i < consumerThreads.size(); i++) {
      if (consumerThreads.get(i).isAlive() && !stuck.get(i).getAsBoolean()) {
        consumerThreads.get(i).interrupt();
      }
    }
    awaitConsumers(System.nanoTime() + 2_000_000_000L);
    watchdog.close();
    if (handOffRouter != null) {
      handOffRouter.close();
    }
    announcers.forEach(HandlerAnnouncer::close);
    lanes.forEach(QueueLane::closeCancels);
    // acknowledgements of finished jobs land before the leftovers are taken back, or those jobs
    // would run twice
    long flushBy = System.nanoTime() + 5_000_000_000L;
    for (QueueLane lane : lanes) {
      if (!lane.acks.flush(flushBy)) {
        log.warn("{}: some acknowledgements could not be sent; those jobs may run again", name);
      }
      lane.acks.close();
    }
    Failure f = failure.get();
    requeueOwnJobs(f == Failure.STUCK_HANDLER ? "worker " + name + " exited: a handler ignored its interruption"
        : f == Failure.THREAD_FAILED ? "worker " + name + " exited: one of its threads could not go on"
        : "worker " + name + " stopped before the job finished (drain timeout)");
    lanes.forEach(QueueLane::closeHeartbeat);
  }

  /**
   * At a JVM exit that did not come from the drain (a handler calling System.exit): sends what
   * acknowledgements it can within a second and takes back the in-flight jobs.
   */
  public void takeBackAtExit(String reason) {
    try {
      long flushBy = System.nanoTime() + 1_000_000_000L;
      for (QueueLane lane : lanes) {
        lane.acks.flush(flushBy);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    requeueOwnJobs(reason);
  }

  private void startConsumers() {
    Consumer.Settings settings = new Consumer.Settings(
        config.worker().pollTimeout().toMillis() / 1000.0,
        config.worker().heartbeatTtl().toMillis(), config.worker().prefetch());
    // strict priority: a later queue's jobs are claimed one at a time, so that each start comes
    // after a look at the earlier queues
    Consumer.Settings oneByOne = new Consumer.Settings(settings.pollSeconds(), settings.heartbeatTtlMs(), 1);
    HandOffRouter handOffs = new HandOffRouter(name);
    handOffRouter = handOffs;
    for (int q = 0; q < lanes.size(); q++) {
      QueueLane lane = lanes.get(q);
      Consumer.Settings laneSettings = config.worker().strict() && q > 0 ? oneByOne : settings;
      ShardWatch watch = null;
      IdleGate gate = null;
      if (lane.broker.shards() > 1) {
        // idle consumers wait for the watch, which sends them to any shard with jobs
        watch = new ShardWatch(lane.broker, settings.pollSeconds(), lane.health);
        watch.start(name, () -> quiet.getAsBoolean() || drained.get(), outages, this::cannotGoOn);
      } else {
        // one idle consumer of the queue at a time waits in Redis, the others park in the worker
        // (on a worker of several queues, those whose home queue it is: see MultiQueueConsumer)
        gate = new IdleGate();
        gates.add(gate);
      }
      // the idle consumers in the gate or the watch hand off what a claim of the pace's took
      // behind a handler that turns out slow
      ClaimPace pace = new ClaimPace(laneSettings.prefetch());
      Consumer.Shared shared = new Consumer.Shared(lane.broker, lane.runner(handlers), watchdog, lane.lease,
          lane.acks, lane.finisher, crashRecord, lane.stats, lane.resync, watch, gate, pace);
      List<Consumer> ofLane = new ArrayList<>();
      for (int slot = 0; slot < consumerIds.size(); slot++) {
        ofLane.add(new Consumer(consumerIds.get(slot), slot, shared, laneSettings, quiet, () -> abandonResults));
      }
      consumers.add(ofLane);
      IdleGate g = gate;
      ShardWatch w = watch;
      handOffs.add(ofLane, g != null ? g::handOff : w::handOff, shard -> g != null ? g.blocking() > 0 : w.blockedOn(shard),
          lane.broker.keys()::shardIndexOf);
    }
    // a handler that runs long while its consumer holds claimed jobs behind it: an idle consumer
    // hands those to the idle ones (the watchdog's thread only asks)
    watchdog.onSlowRun(IdleGate.HAND_OFF_AFTER_NANOS, handOffs::slowRun);
    allConsumers = consumers.stream().flatMap(List::stream).toList();
    List<Integer> weights = lanes.stream().map(l -> config.worker().queues().getOrDefault(l.queue, 1)).toList();
    for (int slot = 0; slot < consumerIds.size(); slot++) {
      String id = consumerIds.get(slot);
      String threadName = name + "/consumer-" + id.substring(id.lastIndexOf(':') + 1);
      RunUntilShutdown.Builder loop;
      if (lanes.size() == 1) {
        Consumer c = consumers.get(0).get(slot);
        stuck.add(c::isStuck);
        loop = RunUntilShutdown.of(threadName, c::pass).until(c::isDone);
      } else {
        int s = slot;
        MultiQueueConsumer m = new MultiQueueConsumer(consumers.stream().map(l -> l.get(s)).toList(),
            new QueuePicker(weights, config.worker().strict(), slot), quiet);
        stuck.add(m::isStuck);
        loop = RunUntilShutdown.of(threadName, m::pass).until(m::isDone);
      }
      consumerThreads.add(loop.riding(new RedisOutage(threadName, outages))
          .onCannotGoOn(this::cannotGoOn, config.worker().heartbeatTtl()).build().start());
    }
  }

  /** How many jobs it could start now: its consumer threads running no handler, times the prefetch. */
  private int roomForJobs() {
    java.util.Set<String> busy = new java.util.HashSet<>();
    for (Consumer c : allConsumers) {
      if (c.runningNow().isPresent()) {
        busy.add(c.id());
      }
    }
    return (consumerIds.size() - busy.size()) * Math.max(1, config.worker().prefetch());
  }

  /** Waits until every consumer not lost in a stuck handler has finished, or the deadline. */
  private void awaitConsumers(long deadlineNanos) throws InterruptedException {
    for (int i = 0; i < consumerThreads.size(); i++) {
      while (consumerThreads.get(i).isAlive() && !stuck.get(i).getAsBoolean()) {
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
  public void cannotGoOn(Throwable t) {
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
      // the lanes whose consumers started: none when the exit came in the start-up checks
      for (int q = 0; q < consumers.size(); q++) {
        for (Consumer c : consumers.get(q)) {
          String id = c.id();
          Requeued r = lanes.get(q).broker.consumerRegistry().requeueInFlight(id, RequeueMode.GONE, reason,
              config.worker().poisonPillAfter(), c.runningNow(), List.of());
          if (r.taken() > 0) {
            log.warn("{}: put back {} job(s) in queue {}: {} unstarted, uncounted; {} that was running charged "
                + "an attempt ({} to dead)", id, r.taken(), lanes.get(q).queue, r.uncharged(), r.charged(),
                r.deadLettered());
          }
        }
      }
    } catch (JedisException e) {
      log.error("{}: could not put back unfinished jobs ({}); the scheduler recovers them "
          + "when their heartbeat expires", name, e.getMessage());
    }
  }
}

package dev.delayq.worker;

import dev.delayq.config.ConfigException;
import dev.delayq.config.DelayqConfig;
import dev.delayq.job.RetryPolicy;
import dev.delayq.metrics.StatsRecorder;
import dev.delayq.process.ChildEnvironment;
import dev.delayq.process.ProcessArgs;
import dev.delayq.process.OutageLog;
import dev.delayq.process.RedisOutage;
import dev.delayq.process.RunUntilShutdown;
import dev.delayq.process.RunningFile;
import dev.delayq.process.ShutdownSignal;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisConnection;
import dev.delayq.redis.RedisConnector;
import dev.delayq.redis.ServerCheck;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The worker process: C consumer threads, a heartbeat, a watchdog, and the drain on shutdown.
 *
 * <p>Exit codes: 0 after a drain (SIGTERM, SIGINT, the supervisor's death); 1 when start-up
 * is refused (bad config, unfit Redis, broken handlers); 70 when a handler ignored its
 * interruption; 71 when something else ended the JVM (a handler calling System.exit); 72 when
 * one of its threads could not go on (it drains the others first). An OutOfMemoryError ends the
 * JVM at once under the default {@code -XX:+ExitOnOutOfMemoryError} (code 3). Whatever the exit,
 * the jobs left in its in-flight lists are taken back, and only the ones whose handler was
 * running are charged.
 */
public final class WorkerMain {
  private static final Logger log = LoggerFactory.getLogger(WorkerMain.class);
  static final int EXIT_REFUSED = 1;
  static final int EXIT_STUCK_HANDLER = 70;
  static final int EXIT_UNEXPECTED = 71;
  static final int EXIT_THREAD_FAILED = 72;

  private WorkerMain() {}

  public static void main(String[] args) throws InterruptedException {
    ChildEnvironment child = ChildEnvironment.read(System.getenv(), "worker");
    DelayqConfig config;
    RedisConnection redis;
    HandlerRegistry handlers;
    try {
      config = ProcessArgs.loadConfig(args);
      handlers = HandlerRegistry.load(child.home().resolve(config.worker().jobsDir()));
      // a consumer blocked in BLMOVE holds its connection; the claims, starts, acknowledgements,
      // heartbeats and stats of the others must never wait for one to come back
      redis = RedisConnector.connect(config, child.name(), 2 * config.worker().threads() + 4);
      redis.checkServer(config.redis().requireNoeviction());
      new RedisBroker(redis, Keys.of(config)).prepare();
    } catch (ConfigException | IllegalArgumentException | IllegalStateException
        | ServerCheck.UnfitServerException e) {
      log.error("{}: cannot start: {}", child.name(), e.getMessage());
      System.exit(EXIT_REFUSED);
      return;
    } catch (JedisException e) {
      log.error("{}: cannot start: Redis unreachable: {}", child.name(), e.getMessage());
      System.exit(EXIT_REFUSED);
      return;
    }
    new WorkerMain.Run(child, config, redis, handlers).run();
  }

  /** One worker run, from the first heartbeat to the exit. */
  private static final class Run {
    private final ChildEnvironment child;
    private final DelayqConfig config;
    private final RedisConnection redis;
    private final HandlerRegistry handlers;
    private final RedisBroker broker;
    private final ShutdownSignal shutdown;
    private final List<String> consumerIds = new ArrayList<>();
    private final List<Consumer> consumers = new ArrayList<>();
    private final List<Thread> consumerThreads = new ArrayList<>();
    private final StatsRecorder stats;
    private final Finisher finisher;
    private final AckSender acks;
    private final Lease lease;
    private final OutageLog outages;
    private RunningFile crashRecord;
    private volatile int exitCode = 0;
    private volatile boolean exiting;
    private volatile boolean abandonResults;

    Run(ChildEnvironment child, DelayqConfig config, RedisConnection redis, HandlerRegistry handlers) {
      this.child = child;
      this.config = config;
      this.redis = redis;
      this.handlers = handlers;
      this.broker = new RedisBroker(redis, Keys.of(config)).withLimits(config);
      this.shutdown = ShutdownSignal.install(child.name(), child.supervisorPid());
      this.stats = new StatsRecorder(broker.keys());
      this.outages = new OutageLog(child.name());
      this.finisher = new Finisher(broker, new RedisOutage(child.name() + "/outcomes", outages),
          () -> abandonResults);
      this.acks = new AckSender(broker, new RedisOutage(child.name() + "/acks", outages), () -> abandonResults);
      this.lease = Lease.forHeartbeat(config.worker().heartbeatTtl().toNanos(),
          config.worker().heartbeatInterval().toNanos());
    }

    void run() throws InterruptedException {
      long pid = ProcessHandle.current().pid();
      int threads = config.worker().threads();
      for (int i = 1; i <= threads; i++) {
        consumerIds.add(ChildEnvironment.consumerPrefix(child.name(), child.host(), pid) + i);
      }
      Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
        log.error("{}: thread {} died of an uncaught error", child.name(), t.getName(), e);
        cannotGoOn(e);
      });
      if (child.supervisorPid() > 0) {
        // only a supervisor on this host reads it, the moment this process is gone
        Path record = RunningFile.pathFor(child.home().resolve(config.supervisor().runDir()), child.name(), pid);
        try {
          crashRecord = RunningFile.create(record, pid, threads);
        } catch (java.io.UncheckedIOException e) {
          log.warn("{}: no crash record ({}); after a crash, the running marks in Redis decide "
              + "which job was running", child.name(), e.getMessage());
        }
      }
      Heartbeat heartbeat = new Heartbeat(broker, consumerIds, config.worker().heartbeatTtl().toMillis(),
          config.worker().heartbeatInterval().toMillis(),
          new RedisOutage(child.name() + "/heartbeat", outages), stats, lease);
      heartbeat.start(this::cannotGoOn, config.worker().heartbeatTtl());
      Runtime.getRuntime().addShutdownHook(new Thread(this::onUnexpectedExit, "unexpected-exit"));

      Watchdog watchdog = new Watchdog(config.worker().interruptGrace().toNanos(), this::onStuckHandler);
      watchdog.start(this::cannotGoOn);
      acks.start(this::cannotGoOn);
      startConsumers(watchdog);
      log.info("{}: started {} consumers on queue {} at {} (pid {}); job types: {}", child.name(),
          threads, config.queue().name(), redis.describe(), pid, handlers.types());

      shutdown.await();
      log.info("{}: draining: no new claims; waiting up to {} ms for running jobs", child.name(),
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
      // acknowledgements of finished jobs land before the leftovers are taken back, or those jobs
      // would run twice
      if (!acks.flush(System.nanoTime() + 5_000_000_000L)) {
        log.warn("{}: some acknowledgements could not be sent; those jobs may run again", child.name());
      }
      acks.close();
      requeueOwnJobs(switch (exitCode) {
        case EXIT_STUCK_HANDLER -> "worker " + child.name() + " exited: a handler ignored its interruption";
        case EXIT_THREAD_FAILED -> "worker " + child.name() + " exited: one of its threads could not go on";
        default -> "worker " + child.name() + " stopped before the job finished (drain timeout)";
      });
      heartbeat.close();
      if (crashRecord != null) {
        crashRecord.delete();
      }
      log.info("{}: stopped ({}), exit {}", child.name(), shutdown.reason(), exitCode);
      exiting = true;
      redis.close();
      System.exit(exitCode);
    }

    private void startConsumers(Watchdog watchdog) {
      RetryPolicy retry = new RetryPolicy(config.retry().baseDelay(), config.retry().maxDelay(),
          config.retry().jitter());
      JobRunner runner = new JobRunner(handlers, stats, config.worker().jobTimeout(), retry);
      Consumer.Settings settings = new Consumer.Settings(
          config.worker().pollTimeout().toMillis() / 1000.0,
          config.worker().heartbeatTtl().toMillis(), config.worker().prefetch());
      Consumer.Shared shared = new Consumer.Shared(broker, runner, watchdog, lease, acks, finisher,
          crashRecord, stats, new FailoverResync(broker, redis::masterEpoch));
      for (int slot = 0; slot < consumerIds.size(); slot++) {
        String id = consumerIds.get(slot);
        Consumer c = new Consumer(id, slot, shared, settings, shutdown::isRequested, () -> abandonResults);
        String name = child.name() + "/consumer-" + id.substring(id.lastIndexOf(':') + 1);
        consumers.add(c);
        consumerThreads.add(RunUntilShutdown.of(name, c::pass).until(c::isDone)
            .riding(new RedisOutage(name, outages))
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

    private void onStuckHandler() {
      exitCode = EXIT_STUCK_HANDLER;
      shutdown.request("a handler ignored its interruption");
    }

    /** A thread that cannot go on: the others drain, and the worker exits non-zero to be replaced. */
    private void cannotGoOn(Throwable t) {
      if (exitCode == 0) {
        exitCode = EXIT_THREAD_FAILED;
      }
      shutdown.request("a thread could not go on (" + t + ")");
    }

    /**
     * Takes back whatever is still in this worker's in-flight lists: the job whose handler is
     * running (this process knows which) counts an attempt and a lost delivery, the others go
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
            + "when their heartbeat expires", child.name(), e.getMessage());
      }
    }

    /** A JVM exit that did not come from the drain above, e.g. a handler calling System.exit. */
    private void onUnexpectedExit() {
      if (exiting) {
        return;
      }
      log.error("{}: the JVM is exiting outside the drain (did a handler call System.exit?); "
          + "putting back in-flight jobs and exiting with {}", child.name(), EXIT_UNEXPECTED);
      try {
        acks.flush(System.nanoTime() + 1_000_000_000L);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      requeueOwnJobs("worker " + child.name() + " exited unexpectedly (System.exit in a handler?)");
      if (crashRecord != null) {
        crashRecord.delete();
      }
      Runtime.getRuntime().halt(EXIT_UNEXPECTED);
    }
  }
}

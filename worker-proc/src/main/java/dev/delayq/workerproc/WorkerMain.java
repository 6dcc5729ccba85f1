package dev.delayq.workerproc;

import dev.delayq.worker.HandlerRegistry;
import dev.delayq.worker.Worker;
import dev.delayq.config.ConfigException;
import dev.delayq.config.DelayqConfig;
import dev.delayq.process.ChildEnvironment;
import dev.delayq.process.ProcessArgs;
import dev.delayq.process.RunningFile;
import dev.delayq.process.ShutdownSignal;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisConnection;
import dev.delayq.redis.RedisConnector;
import dev.delayq.redis.ServerCheck;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The worker process: the {@link Worker} engine under a process's signals, crash record and exit
 * codes.
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
      // heartbeats and stats of the others (and the cancel subscription, 2 more) must never wait for one to come back
      // (per queue served: its heartbeat, sender, finisher and cancel subscription; on a queue of
      // several shards, a shard watcher blocked on each shard as well)
      int shards = config.queue().shards();
      redis = RedisConnector.connect(config, child.name(), 2 * config.worker().threads()
          + 6 * config.queueNames().size() + (shards > 1 ? shards : 0));
      redis.checkServer(config.redis().requireNoeviction());
      for (DelayqConfig queue : config.perQueue()) {
        new RedisBroker(redis, Keys.of(queue)).prepare();
      }
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

  /** "default", or "critical:6, default:3, low:1 (weighted)" / "(strict)". */
  static String describeQueues(DelayqConfig config) {
    if (!config.severalQueues()) {
      return config.queue().name();
    }
    StringBuilder out = new StringBuilder();
    config.worker().queues().forEach((q, w) -> out.append(out.length() == 0 ? "" : ", ").append(q)
        .append(config.worker().strict() ? "" : ":" + w));
    return out.append(config.worker().strict() ? " (strict order)" : " (weighted)").toString();
  }

  /** One worker run, from the first heartbeat to the exit. */
  private static final class Run {
    private final ChildEnvironment child;
    private final DelayqConfig config;
    private final RedisConnection redis;
    private final HandlerRegistry handlers;
    private final ShutdownSignal shutdown;
    private final long pid = ProcessHandle.current().pid();
    private RunningFile crashRecord;
    private Worker worker;
    private volatile boolean exiting;

    Run(ChildEnvironment child, DelayqConfig config, RedisConnection redis, HandlerRegistry handlers) {
      this.child = child;
      this.config = config;
      this.redis = redis;
      this.handlers = handlers;
      this.shutdown = ShutdownSignal.install(child.name(), child.supervisorPid());
    }

    void run() throws InterruptedException {
      int threads = config.worker().threads();
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
      worker = new Worker(child.name(), ChildEnvironment.consumerPrefix(child.name(), child.host(), pid),
          config, redis, handlers, crashRecord, shutdown::isRequested,
          (failure, reason) -> shutdown.request(reason));
      Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
        log.error("{}: thread {} died of an uncaught error", child.name(), t.getName(), e);
        worker.cannotGoOn(e);
      });
      Runtime.getRuntime().addShutdownHook(new Thread(this::onUnexpectedExit, "unexpected-exit"));
      worker.start();
      log.info("{}: started {} consumers on queue{} {} at {} (pid {}); job types: {}", child.name(),
          threads, config.severalQueues() ? "s" : "", describeQueues(config), redis.describe(), pid, handlers.types());

      shutdown.await();
      worker.drain();
      if (crashRecord != null) {
        crashRecord.delete();
      }
      int exitCode = worker.failure() == null ? 0
          : worker.failure() == Worker.Failure.STUCK_HANDLER ? EXIT_STUCK_HANDLER : EXIT_THREAD_FAILED;
      log.info("{}: stopped ({}), exit {}", child.name(), shutdown.reason(), exitCode);
      exiting = true;
      redis.close();
      System.exit(exitCode);
    }

    /** A JVM exit that did not come from the drain above, e.g. a handler calling System.exit. */
    private void onUnexpectedExit() {
      if (exiting) {
        return;
      }
      log.error("{}: the JVM is exiting outside the drain (did a handler call System.exit?); "
          + "putting back in-flight jobs and exiting with {}", child.name(), EXIT_UNEXPECTED);
      worker.takeBackAtExit("worker " + child.name() + " exited unexpectedly (System.exit in a handler?)");
      if (crashRecord != null) {
        crashRecord.delete();
      }
      Runtime.getRuntime().halt(EXIT_UNEXPECTED);
    }
  }
}

package dev.delayq.schedulerproc;

import dev.delayq.config.ConfigException;
import dev.delayq.config.DelayqConfig;
import dev.delayq.process.ChildEnvironment;
import dev.delayq.process.ProcessArgs;
import dev.delayq.process.ShutdownSignal;
import dev.delayq.redis.RedisConnection;
import dev.delayq.redis.RedisConnector;
import dev.delayq.redis.ServerCheck;
import dev.delayq.scheduler.Scheduler;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The scheduler process: the {@link Scheduler} engine (the lease, forwarder, recoverer, wake
 * listeners and schedule ticker of each queue it serves) under a process's stop: SIGTERM/SIGINT
 * or the supervisor's death. Exit codes: 0 after SIGTERM/SIGINT or the supervisor's death, 1
 * when start-up is refused, 72 when one of its threads could not go on (so that the supervisor
 * restarts it).
 */
public final class SchedulerMain {
  private static final Logger log = LoggerFactory.getLogger(SchedulerMain.class);

  static final int EXIT_THREAD_FAILED = 72;

  private SchedulerMain() {}

  public static void main(String[] args) {
    ChildEnvironment child = ChildEnvironment.read(System.getenv(), "scheduler");
    DelayqConfig config;
    RedisConnection redis;
    try {
      config = ProcessArgs.loadConfig(args);
      redis = RedisConnector.connect(config, child.name(), Scheduler.connectionsNeeded(config));
      redis.checkServer(config.redis().requireNoeviction());
      Scheduler.prepare(config, redis);
    } catch (ConfigException | IllegalArgumentException | ServerCheck.UnfitServerException e) {
      log.error("{}: cannot start: {}", child.name(), e.getMessage());
      System.exit(1);
      return;
    } catch (JedisException e) {
      log.error("{}: cannot start: Redis unreachable: {}", child.name(), e.getMessage());
      System.exit(1);
      return;
    }
    ShutdownSignal shutdown = ShutdownSignal.install(child.name(), child.supervisorPid());
    String owner = leaseOwner(child);
    AtomicReference<Scheduler> engine = new AtomicReference<>();
    int[] exitCode = {0};
    Consumer<Throwable> cannotGoOn = t -> {
      exitCode[0] = EXIT_THREAD_FAILED;
      shutdown.request("a thread could not go on (" + t + ")");
      Scheduler s = engine.get();
      if (s != null) {
        s.wakeAll();
      }
    };
    Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
      log.error("{}: thread {} died of an uncaught error", owner, t.getName(), e);
      cannotGoOn.accept(e);
    });
    Scheduler scheduler = Scheduler.wire(config, redis, owner, shutdown, cannotGoOn);
    engine.set(scheduler);
    Thread nudge = new Thread(() -> {
      try {
        shutdown.await();
        scheduler.wakeAll();
      } catch (InterruptedException ignored) {
        // exiting anyway
      }
    }, "shutdown-nudge");
    nudge.setDaemon(true);
    nudge.start();

    int shards = config.queue().shards();
    List<String> queues = scheduler.queueNames();
    log.info("{}: started on queue{} {} ({} shard{}) at {} (batch {}, pid {})", owner, queues.size() == 1 ? "" : "s",
        String.join(", ", queues), shards, shards == 1 ? "" : "s", redis.describe(),
        config.scheduler().batchSize(), ProcessHandle.current().pid());
    scheduler.run(cannotGoOn);
    log.info("{}: stopped ({}), exit {}", owner, shutdown.reason(), exitCode[0]);
    redis.close();
    System.exit(exitCode[0]);
  }

  /**
   * The lease holder's id. Under a supervisor it names the supervisor, not this process, so a
   * scheduler the supervisor restarted after a crash takes its predecessor's lease back at once
   * instead of waiting out its TTL; a second supervisor (another host, or the same one later)
   * has another id and stands by. Run by hand, it names this process.
   */
  static String leaseOwner(ChildEnvironment child) {
    String self = child.name() + "@" + child.host() + ":";
    if (child.supervisorPid() > 0) {
      return self + "supervisor-" + child.supervisorPid();
    }
    return self + ProcessHandle.current().pid();
  }
}

package dev.delayq.scheduler;

import dev.delayq.config.ConfigException;
import dev.delayq.config.DelayqConfig;
import dev.delayq.process.ChildEnvironment;
import dev.delayq.process.OutageLog;
import dev.delayq.process.ProcessArgs;
import dev.delayq.process.ShutdownSignal;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisConnection;
import dev.delayq.redis.RedisConnector;
import dev.delayq.redis.ServerCheck;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The scheduler process: wires the lease, forwarder, recoverer, wake listeners (the lease
 * holder's, and the hot standby's) and schedule ticker of each queue it serves
 * ({@link QueueScheduling}) together.
 * Exit codes: 0 after SIGTERM/SIGINT or the supervisor's death, 1 when start-up is refused,
 * 72 when one of its threads could not go on (so that the supervisor restarts it).
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
      // per queue: a wake listener per shard blocks on its own connection, and so does the
      // standby's subscription
      redis = RedisConnector.connect(config, child.name(),
          config.queueNames().size() * (config.queue().shards() + 3) + 2);
      redis.checkServer(config.redis().requireNoeviction());
      for (DelayqConfig queueConfig : config.perQueue()) {
        new RedisBroker(redis, Keys.of(queueConfig)).prepare();
      }
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
    OutageLog outages = new OutageLog(child.name());
    List<QueueScheduling> queues = new java.util.concurrent.CopyOnWriteArrayList<>();
    int[] exitCode = {0};
    java.util.function.Consumer<Throwable> cannotGoOn = t -> {
      exitCode[0] = EXIT_THREAD_FAILED;
      shutdown.request("a thread could not go on (" + t + ")");
      wakeAll(queues);
    };
    Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
      log.error("{}: thread {} died of an uncaught error", owner, t.getName(), e);
      cannotGoOn.accept(e);
    });
    for (DelayqConfig queueConfig : config.perQueue()) {
      queues.add(QueueScheduling.start(queueConfig, redis, owner, shutdown, outages, cannotGoOn));
    }
    Thread nudge = new Thread(() -> {
      try {
        shutdown.await();
        wakeAll(queues);
      } catch (InterruptedException ignored) {
        // exiting anyway
      }
    }, "shutdown-nudge");
    nudge.setDaemon(true);
    nudge.start();

    int shards = config.queue().shards();
    log.info("{}: started on queue{} {} ({} shard{}) at {} (batch {}, pid {})", owner, queues.size() == 1 ? "" : "s",
        String.join(", ", config.queueNames()), shards, shards == 1 ? "" : "s", redis.describe(),
        config.scheduler().batchSize(), ProcessHandle.current().pid());
    runAll(queues, cannotGoOn);
    log.info("{}: stopped ({}), exit {}", owner, shutdown.reason(), exitCode[0]);
    redis.close();
    System.exit(exitCode[0]);
  }

  /** The loop of a single queue on this thread (as ever); of several, one thread each. */
  private static void runAll(List<QueueScheduling> queues, java.util.function.Consumer<Throwable> cannotGoOn) {
    if (queues.size() == 1) {
      queues.get(0).run(cannotGoOn);
      return;
    }
    List<Thread> threads = new ArrayList<>();
    for (QueueScheduling q : queues) {
      Thread t = new Thread(() -> q.run(cannotGoOn), "scheduler/" + q.queue());
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) {
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private static void wakeAll(List<QueueScheduling> queues) {
    for (QueueScheduling q : queues) {
      q.wake();
    }
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

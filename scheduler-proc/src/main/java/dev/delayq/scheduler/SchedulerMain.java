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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The scheduler process: wires the lease, forwarder, recoverer, wake listeners (the lease
 * holder's, and the hot standby's) and schedule ticker together.
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
      // a wake listener per shard blocks on its own connection, and so does the standby's subscription
      redis = RedisConnector.connect(config, child.name(), config.queue().shards() + 5);
      redis.checkServer(config.redis().requireNoeviction());
      new RedisBroker(redis, Keys.of(config)).prepare();
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
    Keys keys = Keys.of(config);
    RedisBroker broker = new RedisBroker(redis, keys).withLimits(config);

    String owner = leaseOwner(child);
    ShardLeases lease = new ShardLeases(broker, owner, config.scheduler().leaseTtl().toMillis());
    Waiter waiter = new Waiter();
    OutageLog outages = new OutageLog(child.name());
    int[] exitCode = {0};
    java.util.function.Consumer<Throwable> cannotGoOn = t -> {
      exitCode[0] = EXIT_THREAD_FAILED;
      shutdown.request("a thread could not go on (" + t + ")");
      waiter.wake();
    };
    Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
      log.error("{}: thread {} died of an uncaught error", owner, t.getName(), e);
      cannotGoOn.accept(e);
    });
    SchedulerLoop loop = new SchedulerLoop(lease, new Forwarder(broker, config.scheduler().batchSize()),
        new Recoverer(broker, config.worker().poisonPillAfter()), new IdRetentionTrimmer(broker), waiter, shutdown,
        config.scheduler().recoverInterval().toNanos(), config.scheduler().standbyGrace().toMillis(), outages);
    for (int shard = 0; shard < broker.shards(); shard++) {
      int s = shard;
      new WakeListener(broker, s, loop.wakeOf(s), waiter, () -> lease.holds(s), shutdown::isRequested,
          outages).start(cannotGoOn);
    }
    StandbyWakes standbyWakes = new StandbyWakes(broker, loop::wakeOf, lease::holds, waiter,
        config.redis().socketTimeout().dividedBy(2));
    standbyWakes.start(shutdown::isRequested, outages, cannotGoOn);
    new ScheduleTicker(broker).start(shutdown::isRequested, outages, cannotGoOn);
    Thread nudge = new Thread(() -> {
      try {
        shutdown.await();
        waiter.wake();
      } catch (InterruptedException ignored) {
        // exiting anyway
      }
    }, "shutdown-nudge");
    nudge.setDaemon(true);
    nudge.start();

    log.info("{}: started on queue {} ({} shard{}) at {} (batch {}, pid {})", owner, config.queue().name(),
        broker.shards(), broker.shards() == 1 ? "" : "s", redis.describe(), config.scheduler().batchSize(),
        ProcessHandle.current().pid());
    loop.run(cannotGoOn);
    standbyWakes.close();
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

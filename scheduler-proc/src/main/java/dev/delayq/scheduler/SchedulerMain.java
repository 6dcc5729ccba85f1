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
 * The scheduler process: wires the lease, forwarder, recoverer and wake listener together.
 * Exit codes: 0 after SIGTERM/SIGINT or the supervisor's death, 1 when start-up is refused.
 */
public final class SchedulerMain {
  private static final Logger log = LoggerFactory.getLogger(SchedulerMain.class);

  private SchedulerMain() {}

  public static void main(String[] args) {
    ChildEnvironment child = ChildEnvironment.read(System.getenv(), "scheduler");
    DelayqConfig config;
    RedisConnection redis;
    try {
      config = ProcessArgs.loadConfig(args);
      redis = RedisConnector.connect(config, child.name(), 4);
      redis.checkServer(config.redis().requireNoeviction());
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
    Keys keys = new Keys(config.queue().keyPrefix(), config.queue().name());
    RedisBroker broker = new RedisBroker(redis, keys);
    broker.scripts().loadAll();

    String owner = child.name() + "@" + child.host() + ":" + ProcessHandle.current().pid();
    LeaderLease lease = new LeaderLease(broker, owner, config.scheduler().leaseTtl().toMillis());
    Waiter waiter = new Waiter();
    OutageLog outages = new OutageLog(child.name());
    Thread listener = new Thread(new WakeListener(broker, waiter, lease::isHeld, shutdown::isRequested,
        outages), "wake-listener");
    listener.setDaemon(true);
    listener.start();
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

    log.info("{}: started on queue {} at {} (batch {}, pid {})", owner, config.queue().name(),
        redis.describe(), config.scheduler().batchSize(),
        ProcessHandle.current().pid());
    new SchedulerLoop(lease, new Forwarder(broker, config.scheduler().batchSize()),
        new Recoverer(broker, config.worker().poisonPillAfter()), waiter, shutdown,
        config.scheduler().recoverInterval().toNanos(), outages).run();
    log.info("{}: stopped ({})", owner, shutdown.reason());
    redis.close();
    System.exit(0);
  }
}

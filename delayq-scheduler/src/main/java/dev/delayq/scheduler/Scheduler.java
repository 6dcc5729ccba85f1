package dev.delayq.scheduler;

import dev.delayq.config.DelayqConfig;
import dev.delayq.process.ChildEnvironment;
import dev.delayq.process.OutageLog;
import dev.delayq.process.ShutdownSignal;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisConnection;
import dev.delayq.redis.RedisConnector;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scheduler engine: for each queue served, its lease, forwarder, recoverer, id trimmer, wake
 * listeners and schedule ticker ({@link QueueScheduling}). The scheduler process
 * ({@code SchedulerMain}) and an app ({@link #inApp}, the Spring Boot starter) run this same
 * engine on the same lease keys, so supervised and in-app schedulers may share a queue: one holds
 * the lease, the others are hot standbys. They differ only in who tells it to stop and what
 * follows: the process exits, an app goes on. Stopping always gives the lease back, so that a
 * standby takes over at its next lease look instead of after {@code scheduler.leaseTtl}.
 */
public final class Scheduler implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Scheduler.class);
  private static final AtomicInteger IN_APP = new AtomicInteger();
  /** How long {@link #close} waits for the loops (each gives its lease back as it ends). */
  private static final long CLOSE_WAIT_NANOS = 10_000_000_000L;

  private final DelayqConfig config;
  private final RedisConnection redis;
  /** The connection is this engine's own (opened by {@link #inApp(DelayqConfig)}): closed with it. */
  private final boolean ownsRedis;
  private final String owner;
  private final ShutdownSignal shutdown;
  private final List<QueueScheduling> queues = new ArrayList<>();
  private final List<Thread> loops = new ArrayList<>();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final AtomicBoolean closed = new AtomicBoolean();

  private Scheduler(DelayqConfig config, RedisConnection redis, boolean ownsRedis, String owner,
      ShutdownSignal shutdown) {
    this.config = config;
    this.redis = redis;
    this.ownsRedis = ownsRedis;
    this.owner = owner;
    this.shutdown = shutdown;
  }

  /**
   * How many Redis connections the engine of {@code config} may hold at once: per queue a wake
   * listener per shard, the standby's subscription, the ticker and the loop, and two to spare.
   */
  public static int connectionsNeeded(DelayqConfig config) {
    return config.queueNames().size() * (config.queue().shards() + 3) + 2;
  }

  /** Loads the scripts of every queue of {@code config} into Redis; the first call of a start. */
  public static void prepare(DelayqConfig config, RedisConnection redis) {
    for (DelayqConfig queueConfig : config.perQueue()) {
      new RedisBroker(redis, Keys.of(queueConfig)).prepare();
    }
  }

  /**
   * Wires the engine of a process that owns the stop: {@code shutdown} ends it, and
   * {@code cannotGoOn} hears of a thread that could not go on (the process then stops it). The
   * wake listeners and tickers start now; the loops with {@link #run}, on the caller's thread.
   * {@code owner} is the lease holder's id: it must differ between schedulers of one queue.
   */
  public static Scheduler wire(DelayqConfig config, RedisConnection redis, String owner, ShutdownSignal shutdown,
      Consumer<Throwable> cannotGoOn) {
    Scheduler s = new Scheduler(config, redis, false, owner, shutdown);
    s.wireQueues(cannotGoOn);
    return s;
  }

  /**
   * A running engine in this app on its own Redis connection (the {@code redis.*} settings of
   * {@code config}, sized by {@link #connectionsNeeded}), named {@code app-scheduler-N@host:pid}
   * as the lease holder. It checks the server and loads the scripts first, and refuses with the
   * Redis error when it cannot. Runs until {@link #close}.
   */
  public static Scheduler inApp(DelayqConfig config) {
    String owner = inAppOwner();
    RedisConnection redis = RedisConnector.connect(config, owner, connectionsNeeded(config));
    try {
      redis.checkServer(config.redis().requireNoeviction());
      prepare(config, redis);
      return startInApp(config, redis, true, owner);
    } catch (RuntimeException e) {
      redis.close();
      throw e;
    }
  }

  /**
   * A running engine in this app on {@code redis}, a connection the app owns and sizes: it takes
   * up to {@link #connectionsNeeded} of its pool, most of them blocked in wake waits. The
   * connection stays open at {@link #close}.
   */
  public static Scheduler inApp(DelayqConfig config, RedisConnection redis) {
    prepare(config, redis);
    return startInApp(config, redis, false, inAppOwner());
  }

  private static Scheduler startInApp(DelayqConfig config, RedisConnection redis, boolean ownsRedis, String owner) {
    Scheduler s = new Scheduler(config, redis, ownsRedis, owner, new ShutdownSignal());
    s.wireQueues(s::stopOnFailure);
    s.start();
    log.info("{}: in-app scheduler started on queue{} {} at {}", owner, config.queueNames().size() == 1 ? "" : "s",
        String.join(", ", config.queueNames()), redis.describe());
    return s;
  }

  private static String inAppOwner() {
    return "app-scheduler-" + IN_APP.incrementAndGet() + "@" + ChildEnvironment.host(System.getenv()) + ":"
        + ProcessHandle.current().pid();
  }

  private void wireQueues(Consumer<Throwable> cannotGoOn) {
    // outage lines name the process ("scheduler") or the engine ("app-scheduler-1"): the owner up to '@'
    OutageLog outages = new OutageLog(owner.contains("@") ? owner.substring(0, owner.indexOf('@')) : owner);
    for (DelayqConfig queueConfig : config.perQueue()) {
      queues.add(QueueScheduling.start(queueConfig, redis, owner, shutdown, outages, cannotGoOn));
    }
  }

  /** The lease holder's id this engine uses. */
  public String owner() {
    return owner;
  }

  /** The names of the queues it serves. */
  public List<String> queueNames() {
    return queues.stream().map(QueueScheduling::queue).toList();
  }

  /** What made it stop on its own (a thread that could not go on), or null. */
  public Throwable failure() {
    return failure.get();
  }

  /**
   * Runs the loops until shutdown: one queue's on this thread, several queues' on a thread each;
   * each gives its lease back as it ends. {@code cannotGoOn} is told when a loop cannot go on.
   */
  public void run(Consumer<Throwable> cannotGoOn) {
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

  /** Runs each queue's loop on a daemon thread of its own, until {@link #close}. */
  private void start() {
    for (QueueScheduling q : queues) {
      Thread t = new Thread(() -> q.run(this::stopOnFailure), owner + "/" + q.queue());
      t.setDaemon(true);
      loops.add(t);
      t.start();
    }
  }

  /**
   * In an app, a thread that cannot go on stops this engine: its loops end and give the lease
   * back, so another scheduler of the queue takes over; the app goes on, and {@link #failure()}
   * says why. (A process exits instead, and its supervisor restarts it.)
   */
  private void stopOnFailure(Throwable t) {
    if (failure.compareAndSet(null, t)) {
      log.error("{}: stops: a thread could not go on ({}); another scheduler of the queue takes its lease", owner,
          t.toString());
    }
    shutdown.request("a thread could not go on (" + t + ")");
    wakeAll();
  }

  /** Wakes every loop early (a shutdown, a thread that cannot go on). */
  public void wakeAll() {
    for (QueueScheduling q : queues) {
      q.wake();
    }
  }

  /**
   * Stops the loops and gives the lease back at once (through the lease's compare-and-delete, so
   * only a lease this engine still holds), then waits for its listeners; closes its own connection
   * last. A second call does nothing.
   */
  @Override
  public void close() {
    if (closed.getAndSet(true)) {
      return;
    }
    shutdown.request(owner + " closed");
    wakeAll();
    long deadline = System.nanoTime() + CLOSE_WAIT_NANOS;
    try {
      for (Thread t : loops) {
        t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
      }
      for (QueueScheduling q : queues) {
        q.awaitHelpers(deadline);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (ownsRedis) {
      redis.close();
    }
    log.info("{}: in-app scheduler stopped", owner);
  }
}

package dev.delayq.worker;

import dev.delayq.process.LogText;
import dev.delayq.process.OutageLog;
import dev.delayq.process.PubSubListener;
import dev.delayq.process.RedisOutage;
import dev.delayq.process.RunUntilShutdown;
import dev.delayq.redis.RedisBroker;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.UnifiedJedis;

/**
 * Tells the {@link Watchdog} of cancels asked for the jobs this worker runs. A cancel arrives at
 * once on the queue's cancel channel (Redis pub/sub, one subscription per worker process); a
 * message missed while the subscription was down is caught by a look at the standing requests
 * (one MGET of the running jobs' cancel keys) at every heartbeat interval and on each resubscribe.
 */
final class CancelWatch {
  private static final Logger log = LoggerFactory.getLogger(CancelWatch.class);

  private final RedisBroker broker;
  private final Watchdog watchdog;
  private final long sweepEveryNanos;
  private final PubSubListener listener;

  /** {@code pingEvery}: how often the subscription is pinged, well inside the connection's read timeout. */
  CancelWatch(UnifiedJedis redis, RedisBroker broker, Watchdog watchdog, Duration sweepEvery, Duration pingEvery) {
    this.broker = broker;
    this.watchdog = watchdog;
    this.sweepEveryNanos = sweepEvery.toNanos();
    this.listener = new PubSubListener("cancel-listener",
        s -> redis.subscribe(s, broker.keys().cancelChannel()), (channel, id) -> delivered(id),
        channel -> sweepOnSubscribe(), pingEvery);
  }

  /** Starts the subscription and the sweep on their own threads until {@code stopping}. */
  void start(BooleanSupplier stopping, OutageLog outages, String worker, Consumer<Throwable> onCannotGoOn) {
    listener.start(stopping, new RedisOutage(worker + "/cancel-listener", outages), onCannotGoOn);
    RunUntilShutdown.of("cancel-sweep", this::pass).until(stopping)
        .riding(new RedisOutage(worker + "/cancel-sweep", outages))
        .onCannotGoOn(onCannotGoOn, Duration.ofMinutes(1)).build().start();
  }

  /** One look at the standing cancel requests of the running jobs. */
  long pass() {
    for (String id : broker.cancelRequested(watchdog.running())) {
      watchdog.cancel(id);
    }
    return System.nanoTime() + sweepEveryNanos;
  }

  void close() {
    listener.close();
  }

  private void delivered(String id) {
    if (watchdog.cancel(id)) {
      log.debug("cancel of {} delivered", LogText.escape(id));
    }
  }

  private void sweepOnSubscribe() {
    try {
      pass(); // a cancel asked while the subscription was down
    } catch (RuntimeException e) {
      log.debug("cancel sweep on subscribe failed: {}", e.toString());
    }
  }
}

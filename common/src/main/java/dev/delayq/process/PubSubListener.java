package dev.delayq.process;

import java.time.Duration;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.exceptions.JedisException;

/**
 * One Redis pub/sub subscription, kept up by two threads under {@link RunUntilShutdown}: one
 * blocks in it (and subscribes again at once should the connection drop), the other pings it
 * every {@code pingEvery}. A subscribed connection still has the read timeout of a blocking
 * command (redis.socketTimeout): without the pings a subscription that hears nothing for that
 * long would end with a timeout, be logged as an outage, and miss what came until it was back.
 * On each subscribe (the first, and each after a drop) it tells {@code onSubscribed} the channel,
 * for the listener to make good what it may have missed meanwhile.
 */
public final class PubSubListener {
  private final String name;
  private final Consumer<JedisPubSub> subscribe;
  private final BiConsumer<String, String> onMessage;
  private final Consumer<String> onSubscribed;
  private final long pingEveryNanos;
  private final Subscription subscription = new Subscription();
  private volatile RedisOutage outage;

  /**
   * {@code subscribe} blocks in the subscription (e.g. {@code s -> redis.subscribe(s, channel)});
   * {@code onMessage} gets (channel, message).
   */
  public PubSubListener(String name, Consumer<JedisPubSub> subscribe, BiConsumer<String, String> onMessage,
      Consumer<String> onSubscribed, Duration pingEvery) {
    this.name = name;
    this.subscribe = subscribe;
    this.onMessage = onMessage;
    this.onSubscribed = onSubscribed;
    this.pingEveryNanos = pingEvery.toNanos();
  }

  /** Starts both threads until {@code stopping}; {@code onCannotGoOn} is told should one not go on. */
  public void start(BooleanSupplier stopping, RedisOutage outage, Consumer<Throwable> onCannotGoOn) {
    this.outage = outage;
    RunUntilShutdown.of(name, this::listenPass).until(stopping).riding(outage)
        .onCannotGoOn(onCannotGoOn, Duration.ofMinutes(1)).build().start();
    RunUntilShutdown.of(name + "-ping", this::pingPass).until(stopping)
        .onCannotGoOn(onCannotGoOn, Duration.ofMinutes(1)).build().start();
  }

  /** Blocks in the subscription until it ends (close, or the connection drops); then at once again. */
  long listenPass() {
    subscribe.accept(subscription);
    return System.nanoTime();
  }

  /** One ping of the subscription, when there is one. */
  long pingPass() {
    if (subscription.isSubscribed()) {
      try {
        subscription.ping();
      } catch (JedisException e) {
        // the connection is going or gone: the listening thread meets it and subscribes again
      }
    }
    return System.nanoTime() + pingEveryNanos;
  }

  public void close() {
    if (subscription.isSubscribed()) {
      subscription.unsubscribe();
    }
  }

  private final class Subscription extends JedisPubSub {
    @Override
    public void onMessage(String channel, String message) {
      onMessage.accept(channel, message);
    }

    @Override
    public void onSubscribe(String channel, int count) {
      // the subscription blocks for as long as it lasts: being in it is the listener's success
      // (else the process's outage log would never see it come back)
      RedisOutage o = outage;
      if (o != null) {
        o.succeeded();
      }
      onSubscribed.accept(channel);
    }
  }
}

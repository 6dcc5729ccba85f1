package dev.delayq.worker;

import dev.delayq.config.DelayqConfig;
import dev.delayq.job.RetryPolicy;
import dev.delayq.metrics.StatsRecorder;
import dev.delayq.process.OutageLog;
import dev.delayq.process.RedisOutage;
import dev.delayq.process.ShardHealth;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisConnection;
import dev.delayq.tracing.Tracing;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * What a worker keeps per queue it serves: the queue's broker (its own key slot), stats,
 * heartbeat and lease, acknowledgement sender, outcome finisher, cancel watch and job runner
 * (with the queue's own retry policy and job time limit). A worker of one queue has one lane,
 * which is everything a worker had before there were several queues; the consumers of a worker of
 * several queues have an in-flight list in each lane's queue, so each queue keeps its whole
 * invariant and is recovered by its own scheduler loop.
 */
final class QueueLane {
  final String queue;
  final DelayqConfig config;
  final RedisBroker broker;
  final StatsRecorder stats;
  final Finisher finisher;
  final AckSender acks;
  final Lease lease;
  final FailoverResync resync;
  final ShardHealth health;
  private final String name;
  private final OutageLog outages;
  private Heartbeat heartbeat;
  private CancelWatch cancels;

  /** The lane of {@code config}'s queue ({@link DelayqConfig#forQueue}) in worker {@code name}. */
  QueueLane(String name, DelayqConfig config, RedisConnection redis, OutageLog outages, BooleanSupplier abandon) {
    this.queue = config.queue().name();
    this.name = name;
    this.config = config;
    this.outages = outages;
    this.broker = new RedisBroker(redis, Keys.of(config)).withLimits(config);
    this.stats = new StatsRecorder(broker.keys());
    this.lease = Lease.forHeartbeat(config.worker().heartbeatTtl().toNanos(),
        config.worker().heartbeatInterval().toNanos());
    Refusals refusals = new Refusals(lease);
    this.finisher = new Finisher(broker, new RedisOutage(name + "/outcomes", outages), abandon, refusals);
    this.health = new ShardHealth(name, broker.shards(), redis::masterEpoch,
        "its acknowledgements kept and retried, no claims there");
    int shards = broker.shards();
    this.acks = new AckSender(broker, s -> new RedisOutage(shards == 1 ? name + "/acks" : name + "/acks of shard " + s,
        outages), abandon, health, refusals);
    this.resync = new FailoverResync(broker, redis::masterEpoch);
  }

  /** The runner of this queue's jobs: its job time limit and retry backoff. */
  JobRunner runner(HandlerRegistry handlers) {
    return new JobRunner(handlers, stats, config.worker().jobTimeout(), retryPolicy(), queue, broker::clearCancelRequest,
        Tracing.get(), new WorkflowEnd(broker.workflows(), config.queue().maxResultBytes()));
  }

  /** This queue's retry backoff. */
  RetryPolicy retryPolicy() {
    return new RetryPolicy(config.retry().baseDelay(), config.retry().maxDelay(), config.retry().jitter());
  }

  /** Sends the first heartbeat of {@code consumerIds} in this queue, then starts its loops. */
  void start(List<String> consumerIds, Watchdog watchdog, RedisConnection redis, BooleanSupplier drained,
      Consumer<Throwable> cannotGoOn) {
    broker.prepare();
    heartbeat = new Heartbeat(broker, consumerIds, config.worker().heartbeatTtl().toMillis(),
        config.worker().heartbeatInterval().toMillis(), new RedisOutage(name + "/heartbeat", outages),
        new RedisOutage(name + "/stats", outages), stats, lease);
    heartbeat.start(cannotGoOn, config.worker().heartbeatTtl());
    cancels = new CancelWatch(redis.client(), broker, watchdog, config.worker().heartbeatInterval(),
        config.redis().socketTimeout().dividedBy(2));
    cancels.start(drained, outages, name, cannotGoOn);
    acks.start(cannotGoOn);
  }

  boolean started() {
    return heartbeat != null;
  }

  void closeCancels() {
    cancels.close();
  }

  void closeHeartbeat() {
    heartbeat.close();
  }
}

package dev.delayq.redis;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.ClusterPipeline;
import redis.clients.jedis.Connection;
import redis.clients.jedis.MultiNodePipelineBase;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * Opens every pipeline of delayq. A cluster pipeline whose commands go to several masters (every
 * pipeline of a sharded queue: a batched enqueue, the acknowledgements; the per-shard calls of a
 * pass and the lengths beside a claim go node by node instead, see {@link NodeLanes}) reads each master's replies as a task of an executor, and unless
 * it is given one, Jedis 8 starts a new pool of threads for every such pipeline and stops it after
 * ({@code MultiNodePipelineBase.sync}): 1.5 to 2.5 ms of CPU per pipeline on this machine, at a few
 * thousand a second. Here the tasks run on the calling thread, one master after the other: about
 * the cost of a command per master (35 to 55 µs of CPU for three masters' replies, where handing
 * them to a shared pool's threads cost 100 to 220 µs; a one-off measurement, 2,000 pipelines of three
 * LLENs each, under load 11 on 2 cores).
 *
 * <p>Jedis writes a pipeline's commands into each connection's buffer and sends them only when that
 * connection's task reads its replies, so one master after the other would also mean one round
 * trip after the other: a claim beside two other shards' lengths, or a forward of three shards,
 * waited for three masters in turn. So before the first master's replies are read, every master's
 * commands are sent: the masters work at the same time and the pipeline costs one round trip, the
 * slowest master's. Jedis has no public call for that (the connections are the pipeline's, and
 * {@code Connection.flush} is protected); should the reflection it takes not work on some Jedis,
 * the pipeline still works, one round trip per master, and that is logged once.
 */
public final class Pipelines {
  private static final Logger log = LoggerFactory.getLogger(Pipelines.class);
  private static final Field CONNECTIONS;
  private static final Method FLUSH;

  static {
    Field connections = null;
    Method flush = null;
    try {
      connections = MultiNodePipelineBase.class.getDeclaredField("connections");
      connections.setAccessible(true);
      flush = Connection.class.getDeclaredMethod("flush");
      flush.setAccessible(true);
    } catch (ReflectiveOperationException | RuntimeException e) {
      log.warn("Redis Cluster pipelines: this Jedis does not let delayq send every master's commands "
          + "before reading the first one's replies ({}); a pipeline over several masters costs a "
          + "round trip per master", e.toString());
      connections = null;
      flush = null;
    }
    CONNECTIONS = connections;
    FLUSH = flush;
  }

  private static final long REFRESH_EVERY_NANOS = 100_000_000L;
  private static final java.util.concurrent.atomic.AtomicLong lastRefresh = new java.util.concurrent.atomic.AtomicLong();

  private Pipelines() {}

  /**
   * A node of a cluster did not answer a pipeline (a master killed, its replica about to take
   * over): reads the slot map again, at most every 100 ms. Jedis's cluster pipeline does not: it
   * logs the failure, drops the node's replies and routes the next pipeline by the old map, so a
   * process that reached a slot only through pipelines (acknowledgements, claims beside lengths,
   * forwards of several shards, batched enqueues) went on sending to the dead node for good.
   */
  public static void nodeLost(UnifiedJedis redis) {
    if (!(redis instanceof RedisClusterClient cluster)) {
      return;
    }
    long now = System.nanoTime();
    long last = lastRefresh.get();
    if (last != 0 && now - last < REFRESH_EVERY_NANOS || !lastRefresh.compareAndSet(last, now)) {
      return;
    }
    try {
      cluster.refreshClusterTopology();
    } catch (RuntimeException e) {
      log.debug("reading the cluster's slot map again failed ({}); the next lost node tries again", e.toString());
    }
  }

  /**
   * The reply a pipeline's {@code response} holds, or a {@link JedisConnectionException} when it
   * holds none: on a cluster, its node's connection failed while the pipeline read it. Every read
   * of a pipelined reply goes through here, so that a lost node is the outage every caller already
   * handles (Jedis's own {@code Response.get()} throws an IllegalStateException there).
   */
  public static <T> T reply(Response<T> response, String what) {
    try {
      return response.get();
    } catch (IllegalStateException unset) {
      throw new JedisConnectionException("no reply to " + what + ": the connection to its Redis Cluster node "
          + "failed during the pipeline (the slot map is read again)");
    }
  }

  /** A pipeline on {@code redis}; on a cluster, one that reads its masters' replies on the caller's thread. */
  public static AbstractPipeline open(UnifiedJedis redis) {
    if (!(redis instanceof RedisClusterClient cluster)) {
      return redis.pipelined();
    }
    OnTheCaller executor = new OnTheCaller(cluster);
    ClusterPipeline pipeline = cluster.pipelined(executor);
    executor.pipeline = pipeline;
    return pipeline;
  }

  /**
   * Runs each task at once on the thread that hands it over, after sending the commands of every
   * master of its pipeline (see the class comment); one per pipeline, never shut down.
   */
  private static final class OnTheCaller extends AbstractExecutorService {
    private final RedisClusterClient cluster;
    private MultiNodePipelineBase pipeline;

    OnTheCaller(RedisClusterClient cluster) {
      this.cluster = cluster;
    }

    @Override
    public void execute(Runnable task) {
      sendAll();
      Map<?, Connection> connections = connections();
      int before = connections == null ? 0 : connections.size();
      task.run();
      // Jedis drops the connection of a node whose replies could not be read, and leaves them unset
      if (connections != null && connections.size() < before) {
        nodeLost(cluster);
      }
    }

    @SuppressWarnings("unchecked")
    private Map<?, Connection> connections() {
      if (CONNECTIONS == null || pipeline == null) {
        return null;
      }
      try {
        return (Map<?, Connection>) CONNECTIONS.get(pipeline);
      } catch (IllegalAccessException | ClassCastException e) {
        return null;
      }
    }

    /** Sends what each connection of the pipeline holds; what is sent already costs nothing more. */
    private void sendAll() {
      Map<?, Connection> connections = connections();
      if (connections == null) {
        return; // not the Jedis this was written for: its tasks send their own commands, as they would anyway
      }
      for (Connection c : connections.values()) {
        try {
          FLUSH.invoke(c);
        } catch (ReflectiveOperationException e) {
          // a connection that cannot send is the task's to report: it tries again and fails there
        }
      }
    }

    @Override
    public void shutdown() {}

    @Override
    public List<Runnable> shutdownNow() {
      return List.of();
    }

    @Override
    public boolean isShutdown() {
      return false;
    }

    @Override
    public boolean isTerminated() {
      return false;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
      return false;
    }
  }
}

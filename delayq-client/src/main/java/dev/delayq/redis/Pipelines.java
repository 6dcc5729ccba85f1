package dev.delayq.redis;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * Opens every pipeline of delayq. A cluster pipeline whose commands go to several masters (every
 * pipeline of a sharded queue: a batched enqueue, the acknowledgements, a claim beside the other
 * shards' lengths, the forwards) reads each master's replies on a thread of its own, and unless
 * it is given an executor, Jedis starts a new pool of threads for every such pipeline and stops it
 * after (Jedis 8, {@code MultiNodePipelineBase.sync}): thousands of threads started a second at a
 * few thousand jobs a second. Here they all share one pool, whose threads are kept for a minute
 * when idle. A pipeline to one master, or to a plain Redis, uses no thread at all.
 */
public final class Pipelines {
  private static final ExecutorService SYNC = Executors.newCachedThreadPool(new java.util.concurrent.ThreadFactory() {
    private final AtomicInteger count = new AtomicInteger();

    @Override
    public Thread newThread(Runnable r) {
      Thread t = new Thread(r, "redis-pipeline-sync-" + count.incrementAndGet());
      t.setDaemon(true);
      return t;
    }
  });

  private Pipelines() {}

  /** A pipeline on {@code redis}; on a cluster, one that syncs its masters on the shared threads. */
  public static AbstractPipeline open(UnifiedJedis redis) {
    return redis instanceof RedisClusterClient cluster ? cluster.pipelined(SYNC) : redis.pipelined();
  }
}

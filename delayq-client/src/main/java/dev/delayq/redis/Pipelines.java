package dev.delayq.redis;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * Opens every pipeline of delayq. A cluster pipeline whose commands go to several masters (every
 * pipeline of a sharded queue: a batched enqueue, the acknowledgements, a claim beside the other
 * shards' lengths, the forwards) reads each master's replies as a task of an executor, and unless
 * it is given one, Jedis 8 starts a new pool of threads for every such pipeline and stops it after
 * ({@code MultiNodePipelineBase.sync}): 1.5 to 2.5 ms of CPU per pipeline on this machine, at a few
 * thousand a second. Here the tasks run on the calling thread, one master after the other: about
 * the cost of a command per master (35 to 55 µs of CPU for three masters' replies, where handing
 * them to a shared pool's threads cost 100 to 220 µs; a one-off measurement, 2,000 pipelines of three
 * LLENs each, under load 11 on 2 cores).
 */
public final class Pipelines {
  /** Runs each task at once on the thread that hands it over; never shut down. */
  private static final ExecutorService ON_THE_CALLER = new AbstractExecutorService() {
    @Override
    public void execute(Runnable task) {
      task.run();
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
  };

  private Pipelines() {}

  /** A pipeline on {@code redis}; on a cluster, one that reads its masters' replies on the caller's thread. */
  public static AbstractPipeline open(UnifiedJedis redis) {
    return redis instanceof RedisClusterClient cluster ? cluster.pipelined(ON_THE_CALLER) : redis.pipelined();
  }
}

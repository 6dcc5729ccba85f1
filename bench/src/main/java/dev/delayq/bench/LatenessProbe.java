package dev.delayq.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;
import java.net.URI;
import java.util.HashSet;
import java.util.Set;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * bench_probe: a no-op handler that records how late it started and which job it was
 * ("<start - due ms>,<id>") in the Redis list the payload names ("log"; the id lets
 * bench/scripts/lateness-trace.sh follow each job through a MONITOR of the Redis); with "marker": true it records "<id>,<start epoch ms>"
 * instead, with "seq": n (the soak's ledger) "<n>,<start epoch ms>,<due epoch ms>,<attempt>", and with
 * "tick": true how late it started against its schedule tick
 * (start - {@code ctx.tickAt()}, ms); with "sleepMs" it then sleeps (interruptibly). The stamp is
 * taken at the handler's start and pushed in batches by {@link ProbeStamps} (but the soak's, at once). The bench drops its own jar into
 * the workers' jobs directory, so this also exercises handler discovery from jobs/.
 */
public final class LatenessProbe implements JobHandler {
  private static volatile UnifiedJedis redis;
  private static volatile ProbeStamps stamps;
  /** DELAYQ_BENCH_PROBE_PUSH=each: one RPUSH per job as before the batching (for A/B runs). */
  private static final boolean PUSH_EACH = "each".equals(System.getenv("DELAYQ_BENCH_PROBE_PUSH"));

  /**
   * Opens its Redis connection here, as the worker loads its handlers before its consumers
   * start, the way a handler sets up what it needs: opened by the first job instead, it held
   * every consumer of the worker on its lock for the ~70 ms a fresh JVM takes to build a client
   * and connect, and the jobs due meanwhile waited in ready for a free consumer (the 37 ms max of
   * a quiet precision run was that, a tail of the instrument, not of delayq).
   */
  public LatenessProbe() {
    if (System.getenv("DELAYQ_REDIS_URL") != null || System.getenv("DELAYQ_REDIS_CLUSTER") != null) {
      redis().ping();
      stamps();
    }
  }

  @Override
  public String type() {
    return "bench_probe";
  }

  @Override
  public JobResult handle(JobContext ctx) throws InterruptedException {
    long now = System.currentTimeMillis();
    long due = ctx.dueAt().toEpochMilli();
    // parsed once: each ctx.payload() parses the JSON again, and five parses a job were nearly
    // half of what a worker allocated at 5,000 jobs/s (its young GCs, the measure's tail)
    JsonNode payload = ctx.payload();
    String entry;
    if (payload.has("seq")) {
      entry = payload.path("seq").asLong() + "," + now + "," + due + "," + ctx.attempt();
    } else if (payload.path("marker").asBoolean()) {
      entry = ctx.id() + "," + now;
    } else if (payload.path("tick").asBoolean()) {
      // a job of no schedule has no tick: "none", which the bench counts as a failure
      entry = ctx.tickAt().map(t -> Long.toString(now - t.toEpochMilli())).orElse("none") + "," + ctx.id();
    } else {
      entry = (now - due) + "," + ctx.id();
    }
    String log = payload.path("log").asText();
    if (payload.has("seq") || PUSH_EACH) {
      // the soak's ledger, which SIGKILLs workers: its stamp is in Redis before the job is acked
      redis().rpush(log, entry);
    } else {
      stamps().add(log, entry);
    }
    long sleep = payload.path("sleepMs").asLong(0);
    if (sleep > 0) {
      Thread.sleep(sleep);
    }
    return JobResult.done();
  }

  private static ProbeStamps stamps() {
    if (stamps == null) {
      synchronized (LatenessProbe.class) {
        if (stamps == null) {
          stamps = new ProbeStamps(LatenessProbe::redis);
        }
      }
    }
    return stamps;
  }

  /** The bench's Redis, as the worker reaches it: its cluster (DELAYQ_REDIS_CLUSTER) or its URL. */
  private static UnifiedJedis redis() {
    if (redis == null) {
      synchronized (LatenessProbe.class) {
        if (redis == null) {
          String cluster = System.getenv().getOrDefault("DELAYQ_REDIS_CLUSTER", "");
          if (cluster.isBlank()) {
            redis = RedisClient.create(URI.create(System.getenv("DELAYQ_REDIS_URL")));
          } else {
            Set<HostAndPort> seeds = new HashSet<>();
            for (String node : cluster.split(",")) {
              seeds.add(HostAndPort.from(node.trim()));
            }
            redis = RedisClusterClient.create(seeds);
          }
        }
      }
    }
    return redis;
  }
}

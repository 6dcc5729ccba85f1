package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.delayq.testing.RedisCluster;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.Response;

/**
 * {@link Pipelines#open} on the three-master cluster: a pipeline over several masters sends every
 * master's commands before it waits for the first one's replies, so it costs one round trip, not
 * one per master.
 */
class PipelinesTest {

  @Test
  void aPipelineOverTwoMastersSendsTheSecondOnesCommandsBeforeWaitingForTheFirstOnesReplies() throws Exception {
    RedisCluster cluster = RedisCluster.shared();
    String q = cluster.queueSpreadOverMasters(2, false);
    String gate = "{" + q + "#0}:gate";
    String flag = "{" + q + "#1}:flag";
    Set<HostAndPort> seeds = new HashSet<>();
    for (String node : cluster.seeds().split(",")) {
      seeds.add(HostAndPort.from(node));
    }
    try (RedisClusterClient redis = RedisClusterClient.builder().nodes(seeds)
        .clientConfig(DefaultJedisClientConfig.builder().socketTimeoutMillis(20_000).build()).build()) {
      // the gate opens (on the first master) once the flag is seen (on the second): only a
      // pipeline that sent the flag before reading the first master's reply gets the gate's value
      CompletableFuture<Void> opener = CompletableFuture.runAsync(() -> {
        long deadline = System.nanoTime() + 15_000_000_000L;
        while (redis.get(flag) == null && System.nanoTime() < deadline) {
          Thread.onSpinWait();
        }
        redis.rpush(gate, "open");
      });
      Response<List<String>> opened;
      Response<String> set;
      try (AbstractPipeline p = Pipelines.open(redis)) {
        opened = p.blpop(10, gate);
        set = p.set(flag, "1");
        p.sync();
      }
      opener.get();
      assertEquals(List.of(gate, "open"), opened.get(),
          "the first master's reply came only after its 10 s timeout: the second master's command waited for it");
      assertEquals("OK", set.get());
      redis.del(gate, flag);
    }
  }
}

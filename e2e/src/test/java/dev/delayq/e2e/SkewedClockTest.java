package dev.delayq.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.DelayQueue;
import dev.delayq.redis.Keys;
import dev.delayq.redisserver.RedisBinary;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisConnector;
import dev.delayq.testing.RedisFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;

/**
 * The clock pitfall: due times must not depend on the producer's clock. Here the
 * Redis server's clock runs one hour ahead of the producer's, scheduler's and worker's (it
 * runs under libfaketime), which is the same as a producer whose clock is an hour behind.
 * A job delayed by 2 s must still start 2 s later: not at once, not in an hour.
 */
class SkewedClockTest {
  private static final Path LIBFAKETIME = Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1");

  @Test
  void producerWithAClockAnHourOffStillGetsItsJobOnTime() throws Exception {
    Assumptions.assumeTrue(Files.exists(LIBFAKETIME),
        "needs libfaketime (.ci/run installs it: apt-get install libfaketime)");
    int port = RedisFixture.freePort();
    // The shipped redis-server: Debian's, built with jemalloc, does not start under libfaketime.
    ProcessBuilder pb = new ProcessBuilder(RedisBinary.shipped().toString(), "--port",
        Integer.toString(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD);
    pb.environment().put("LD_PRELOAD", LIBFAKETIME.toString());
    pb.environment().put("FAKETIME", "+1h");
    Process redisServer = pb.start();
    String url = "redis://127.0.0.1:" + port;
    try (UnifiedJedis redis = awaitRedis(url);
        JvmProcesses processes = new JvmProcesses("skewedClock", url, "skew")) {
      long skewMs = redisNowMs(redis) - System.currentTimeMillis();
      assertTrue(Math.abs(skewMs - 3_600_000) < 60_000, "Redis clock should be 1 h ahead, is " + skewMs);
      Keys keys = new Keys("delayq", "skew");
      RedisBroker broker = new RedisBroker(redis, keys);
      DelayQueue producer = new DelayQueue(broker, 1 << 20, 5);
      RunLog log = new RunLog(redis, "skew:runs");
      processes.scheduler("scheduler");
      processes.worker("worker-1");
      await().atMost(30, TimeUnit.SECONDS).until(() -> broker.consumerRegistry().consumers().size() > 0);

      long enqueued = System.nanoTime();
      producer.delay("test_record", "{\"log\":\"skew:runs\"}", Duration.ofSeconds(2));
      await().atMost(10, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(20)).until(() -> log.size() == 1);
      long tookMs = (System.nanoTime() - enqueued) / 1_000_000;

      assertTrue(tookMs >= 2_000, "ran after " + tookMs + " ms: early, by the producer's clock");
      assertTrue(tookMs < 4_000, "ran after " + tookMs + " ms: late");
      assertEquals(List.of(), new dev.delayq.redis.InvariantCheck(redis, keys).breaches());
    } finally {
      redisServer.destroyForcibly();
      redisServer.waitFor(5, TimeUnit.SECONDS);
    }
  }

  private static UnifiedJedis awaitRedis(String url) {
    UnifiedJedis redis = RedisConnector.open(url, "skew-test", 8, Duration.ofSeconds(1), Duration.ofSeconds(5));
    await().atMost(10, TimeUnit.SECONDS).ignoreExceptions().until(() -> "PONG".equals(redis.ping()));
    return redis;
  }

  private static long redisNowMs(UnifiedJedis redis) {
    Object reply = redis.sendCommand(Protocol.Command.TIME);
    List<?> parts = (List<?>) reply;
    long seconds = Long.parseLong(new String((byte[]) parts.get(0)));
    long micros = Long.parseLong(new String((byte[]) parts.get(1)));
    return seconds * 1000 + micros / 1000;
  }
}

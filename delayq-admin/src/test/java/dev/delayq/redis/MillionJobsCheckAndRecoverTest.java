package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import dev.delayq.testing.RedisServer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;

/**
 * {@code delayq check} and {@code delayq recover} (Inspector.check, Admin.recover) on a queue of
 * 1,000,000 pending jobs, on a Redis of their own: no command they send takes 10 ms or more
 * (SLOWLOG), and another client's PING stays quick while they run (p99 under 5 ms). 995,000 jobs
 * wait in delayed; 5,000 sit in the list of a consumer whose heartbeat expired, which recover
 * takes back.
 */
class MillionJobsCheckAndRecoverTest {
  private static final int JOBS = 1_000_000;
  private static final int IN_FLIGHT = 5_000;
  private static final int CHUNK = 1_000;

  @Test
  void checkAndRecoverOfAMillionJobsSendNoSlowCommandAndKeepRedisResponsive() throws Exception {
    try (RedisServer server = RedisServer.start(); RedisClient redis = server.client();
        Jedis admin = new Jedis("127.0.0.1", server.port())) {
      Keys keys = new Keys("delayq", RedisFixture.freshQueue());
      RedisBroker broker = new RedisBroker(redis, keys);
      broker.scripts().loadAll();
      load(redis, keys);
      admin.configSet("slowlog-log-slower-than", "10000");
      // Timing on a shared 2-core host: a look counts when Redis was not starved meanwhile (a
      // command descheduled for 30 ms shows in SLOWLOG too), so up to three looks are taken, each
      // printed; a real cost (a whole-structure read of a million ids takes 100+ ms) fails all three.
      List<String> looks = new ArrayList<>();
      for (int look = 1; look <= 3; look++) {
        Look l = look(server, redis, admin, broker, keys);
        looks.add(l.toString());
        System.out.println("look " + look + ": " + l);
        assertEquals(List.of(), l.breaches());
        assertEquals(IN_FLIGHT, l.takenBack());
        if (l.slowCommands().isEmpty() && l.pingP99Ms() < 5) {
          return;
        }
        seedInFlight(redis, keys);
      }
      throw new AssertionError("no look kept every command under 10 ms and PING p99 under 5 ms: " + looks);
    }
  }

  private record Look(List<Inspector.Breach> breaches, int takenBack, long checkMs, long recoverMs,
      List<String> slowCommands, int pings, double pingP50Ms, double pingP99Ms, double pingMaxMs) {
    @Override
    public String toString() {
      return String.format("1,000,000 jobs: check %d ms, recover %d ms (%d taken back); commands >= 10 ms: %s; "
          + "PING of another client over %d pings: p50 %.2f ms, p99 %.2f ms, max %.2f ms",
          checkMs, recoverMs, takenBack, slowCommands, pings, pingP50Ms, pingP99Ms, pingMaxMs);
    }
  }

  private static Look look(RedisServer server, RedisClient redis, Jedis admin, RedisBroker broker, Keys keys)
      throws InterruptedException {
    admin.slowlogReset();
    long[] pings = new long[200_000];
    int[] count = {0};
    AtomicBoolean done = new AtomicBoolean();
    Thread pinger = new Thread(() -> {
      try (Jedis other = new Jedis("127.0.0.1", server.port())) {
        while (!done.get() && count[0] < pings.length) {
          long t = System.nanoTime();
          other.ping();
          pings[count[0]++] = System.nanoTime() - t;
          Thread.sleep(1);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "pinger");
    pinger.start();
    long t0 = System.nanoTime();
    List<Inspector.Breach> breaches = new Inspector(redis, keys).check();
    long checkMs = (System.nanoTime() - t0) / 1_000_000;
    t0 = System.nanoTime();
    Admin.RecoverReport report = new Admin(broker, 3).recover();
    long recoverMs = (System.nanoTime() - t0) / 1_000_000;
    done.set(true);
    pinger.join();
    List<String> slow = admin.slowlogGet(128).stream()
        .map(s -> s.getExecutionTime() + "us " + String.join(" ", s.getArgs()).replaceAll("(.{120}).*", "$1…")).toList();
    long[] sorted = Arrays.copyOf(pings, count[0]);
    Arrays.sort(sorted);
    return new Look(breaches, report.requeued(), checkMs, recoverMs, slow, sorted.length,
        sorted[sorted.length / 2] / 1e6, sorted[(int) (sorted.length * 0.99)] / 1e6, sorted[sorted.length - 1] / 1e6);
  }

  /** The 5,000 jobs back in the list of the expired consumer, as before the first look. */
  private static void seedInFlight(RedisClient redis, Keys keys) {
    redis.del(keys.ready());
    List<String> deliveries = new ArrayList<>();
    for (int i = 0; i < IN_FLIGHT; i++) {
      deliveries.add((i + 1) + "|job-" + i);
    }
    redis.lpush(keys.inFlight("gone@host:1:1"), deliveries.toArray(String[]::new));
    redis.zadd(keys.consumers(), 1, "gone@host:1:1");
  }

  /** 995,000 jobs in delayed and 5,000 in an expired consumer's list, pipelined a thousand per command. */
  private static void load(RedisClient redis, Keys keys) {
    String head = QueueProbe.head(QueueProbe.TYPE, 5);
    try (AbstractPipeline p = redis.pipelined()) {
      for (int from = 0; from < JOBS; from += CHUNK) {
        Map<String, String> records = new HashMap<>(CHUNK * 2);
        Map<String, Double> due = new HashMap<>(CHUNK * 2);
        List<String> deliveries = new ArrayList<>();
        for (int i = from; i < from + CHUNK; i++) {
          String id = "job-" + i;
          long dueAt = 4_000_000_000_000L + i;
          records.put(id, head + ",\"c\":1,\"d\":" + (dueAt - 1) + ",\"p\":{\"order_id\":" + i + "}}");
          if (i < IN_FLIGHT) {
            deliveries.add((i + 1) + "|" + id);
          } else {
            due.put(id, (double) dueAt);
          }
        }
        p.hset(keys.jobs(), records);
        if (!due.isEmpty()) {
          p.zadd(keys.delayed(), due);
        }
        if (!deliveries.isEmpty()) {
          p.lpush(keys.inFlight("gone@host:1:1"), deliveries.toArray(String[]::new));
        }
        if (from % 50_000 == 0) {
          p.sync();
        }
      }
      p.zadd(keys.consumers(), 1, "gone@host:1:1");
      p.sync();
    }
    assertEquals(JOBS, redis.hlen(keys.jobs()));
  }
}

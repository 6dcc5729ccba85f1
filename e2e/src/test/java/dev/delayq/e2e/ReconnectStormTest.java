package dev.delayq.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.DelayQueue;
import dev.delayq.JobRequest;
import dev.delayq.redis.InvariantCheck;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisConnector;
import dev.delayq.redis.ServerCheck;
import dev.delayq.redisserver.RedisServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;

/**
 * 16 workers x 8 threads lose Redis at once (SIGKILL) and get it back 2 s later. Every thread
 * backs off with jitter, so the reconnections spread out instead of landing in one burst, and
 * each worker stays within its connection pool: Redis runs with maxclients just above what the
 * pools may hold together, and it never refuses a connection ("max number of clients reached").
 * No job is lost or run twice.
 */
class ReconnectStormTest {
  private static final int WORKERS = 16;
  private static final int THREADS = 8;
  /** A worker's pool (threads + 4) and the test handlers' ledger pool (8). */
  private static final int CONNECTIONS_PER_WORKER = THREADS + 4 + 8;
  /** The scheduler's pool (shards + 5), this test's two clients, and a little slack. */
  private static final int MAX_CLIENTS = WORKERS * CONNECTIONS_PER_WORKER + 6 + 8 + 1 + 8;
  private static final int JOBS = 2_000;

  @TempDir
  Path dir;

  @Test
  void sixteenWorkersReconnectSpreadOutWithinTheirPoolsAndLoseNothing() throws Exception {
    try (RedisServer redis = RedisServer.startPersistent(dir, "--maxclients", Integer.toString(MAX_CLIENTS));
        UnifiedJedis client = RedisConnector.open(redis.url(), "storm-test", 8, Duration.ofSeconds(1), Duration.ofSeconds(5));
        UnifiedJedis sampler = RedisConnector.open(redis.url(), "storm-sampler", 1, Duration.ofSeconds(1), Duration.ofSeconds(5));
        JvmProcesses processes = new JvmProcesses("reconnectStorm", redis.url(), "storm")
            .with("DELAYQ_WORKER_THREADS", Integer.toString(THREADS))) {
      await().atMost(10, TimeUnit.SECONDS).ignoreExceptions().until(() -> "PONG".equals(client.ping()));
      Keys keys = new Keys("delayq", "storm");
      RedisBroker broker = new RedisBroker(client, keys);
      RunLog log = new RunLog(client, "storm:runs");
      processes.scheduler("scheduler");
      for (int w = 1; w <= WORKERS; w++) {
        processes.worker("worker-" + w);
      }
      await().atMost(120, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(500))
          .until(() -> broker.consumerRegistry().consumers().size() == WORKERS * THREADS);

      List<JobRequest> jobs = new ArrayList<>();
      for (int i = 0; i < JOBS; i++) {
        jobs.add(JobRequest.delay("test_record", "{\"log\":\"storm:runs\",\"sleepMs\":20}", Duration.ofMillis(i * 3L)));
      }
      new DelayQueue(broker, 1 << 20, 5).enqueueAll(jobs);
      await().atMost(30, TimeUnit.SECONDS).until(() -> log.size() >= 200);

      redis.kill();
      Thread.sleep(2_000); // the outage itself: every thread is backing off by now
      redis.restart();
      List<Long> arrivals = connectionArrivals(sampler, Duration.ofSeconds(8));

      await().atMost(120, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(250)).ignoreExceptions()
          .until(() -> client.hlen(keys.jobs()) == 0);
      Map<String, List<Integer>> attempts = log.attemptsById();
      assertEquals(JOBS, attempts.size(), "lost 0");
      // a run whose ledger write met the outage failed, and its retry is the next attempt; a
      // duplicate would be a second run of the same attempt
      Map<String, List<Integer>> duplicated = new java.util.TreeMap<>();
      attempts.forEach((id, runs) -> {
        if (runs.stream().distinct().count() < runs.size()) {
          duplicated.put(id, runs);
        }
      });
      assertEquals(Map.of(), duplicated, "no attempt ran twice");
      assertEquals(List.of(), new InvariantCheck(client, keys).breaches());

      Map<String, String> stats = ServerCheck.info(client, "stats");
      assertEquals("0", stats.get("rejected_connections"), "Redis refused connections: " + stats);
      for (int w = 1; w <= WORKERS; w++) {
        String workerLog = Files.readString(Path.of("target", "e2e-logs", "reconnectStorm-worker-" + w + ".log"));
        assertFalse(workerLog.contains("max number of clients reached"), "worker-" + w + " was refused");
      }
      // Every worker came back. Not one connection per thread: one idle consumer of a worker
      // waits in Redis and the others park (IdleGate), so they share what the pool holds
      String clients = new String((byte[]) client.sendCommand(Protocol.Command.CLIENT, "LIST"), StandardCharsets.UTF_8);
      for (int w = 1; w <= WORKERS; w++) {
        String name = " name=worker-" + w + " ";
        assertTrue(clients.lines().anyMatch(l -> l.contains(name)), "worker-" + w + " reconnected:\n" + clients);
      }
      // Reconnections spread: the middle 80 % of them took at least 200 ms to arrive, where
      // 128 threads that failed at the same instant would retry at the same instant without jitter
      assertTrue(arrivals.size() >= 2 * WORKERS, "reconnections seen: " + arrivals.size());
      long spreadMs = arrivals.get(arrivals.size() * 9 / 10) - arrivals.get(arrivals.size() / 10);
      System.out.printf("reconnect storm: %d connections, the middle 80%% over %d ms%n", arrivals.size(), spreadMs);
      assertTrue(spreadMs >= 200, "reconnections came in a burst: the middle 80 % within " + spreadMs + " ms");
    }
  }

  /**
   * When each new connection arrived after the restart (ms from the first), read from the
   * server's own count of connections received since it started, sampled every 5 ms.
   */
  private static List<Long> connectionArrivals(UnifiedJedis sampler, Duration window) throws InterruptedException {
    List<Long> arrivals = new ArrayList<>();
    long start = System.nanoTime();
    long seen = -1;
    long first = -1;
    while (System.nanoTime() - start < window.toNanos()) {
      long received;
      try {
        received = Long.parseLong(ServerCheck.info(sampler, "stats").get("total_connections_received"));
      } catch (RuntimeException notUpYet) {
        Thread.sleep(5);
        continue;
      }
      long now = (System.nanoTime() - start) / 1_000_000;
      for (long i = Math.max(seen, 0); i < received; i++) {
        if (first < 0) {
          first = now;
        }
        arrivals.add(now - first);
      }
      seen = received;
      Thread.sleep(5);
    }
    return arrivals;
  }
}

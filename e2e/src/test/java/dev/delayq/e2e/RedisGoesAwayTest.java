package dev.delayq.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.DelayQueue;
import dev.delayq.JobRequest;
import dev.delayq.redis.InvariantCheck;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisConnector;
import dev.delayq.redisserver.RedisServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.UnifiedJedis;

/**
 * Redis goes away under a running scheduler and worker (SIGKILL) and comes back 3 s later from
 * its append-only file: the processes keep running, back off, each logs the outage once when it
 * starts and once when it ends (not once per thread), and every job still runs.
 */
class RedisGoesAwayTest {
  private static final Pattern OUTAGE = Pattern.compile("(\\S+): Redis (unreachable|back after)");

  @TempDir
  Path dir;

  @Test
  void processesRideOutARedisOutageAndLogItOncePerStateChange() throws Exception {
    for (String role : List.of("worker-1", "scheduler")) {
      Files.deleteIfExists(Path.of("target", "e2e-logs", "redisOutage-" + role + ".log"));
    }
    try (RedisServer redis = RedisServer.startPersistent(dir);
        UnifiedJedis client = RedisConnector.open(redis.url(), "outage-test", 8, Duration.ofSeconds(1), Duration.ofSeconds(5));
        JvmProcesses processes = new JvmProcesses("redisOutage", redis.url(), "outage")) {
      await().atMost(10, TimeUnit.SECONDS).ignoreExceptions().until(() -> "PONG".equals(client.ping()));
      Keys keys = new Keys("delayq", "outage");
      RedisBroker broker = new RedisBroker(client, keys);
      DelayQueue producer = new DelayQueue(broker, 1 << 20, 5);
      RunLog log = new RunLog(client, "outage:runs");
      Process scheduler = processes.scheduler("scheduler");
      Process worker = processes.worker("worker-1");
      await().atMost(30, TimeUnit.SECONDS).until(() -> broker.consumerRegistry().consumers().size() > 0);

      List<JobRequest> jobs = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        jobs.add(JobRequest.delay("test_record", "{\"log\":\"outage:runs\"}", Duration.ofMillis(i * 20L)));
      }
      producer.enqueueAll(jobs);
      await().atMost(10, TimeUnit.SECONDS).until(() -> log.size() >= 50);

      redis.kill();
      Thread.sleep(3_000); // the outage itself: nothing to wait for but time
      redis.restart();

      await().atMost(60, TimeUnit.SECONDS).ignoreExceptions()
          .until(() -> client.hlen(keys.jobs()) == 0 && client.zcard(keys.dead()) == 0);
      assertTrue(scheduler.isAlive() && worker.isAlive(), "both processes rode out the outage");
      assertEquals(300, new HashSet<>(log.runs().stream().map(RunLog.Run::id).toList()).size(),
          "every job ran");
      assertEquals(List.of(), new InvariantCheck(client, keys).breaches());
      // A subject logs "back" on its own next call to Redis, which can come after the last job
      // ran (an idle loop's next poll), so the log is waited for, not read once.
      for (String role : List.of("worker-1", "scheduler")) {
        Path logFile = Path.of("target", "e2e-logs", "redisOutage-" + role + ".log");
        await().atMost(20, TimeUnit.SECONDS).untilAsserted(() -> assertOutageLoggedOncePerSubject(logFile));
      }
    }
  }

  /** The process logged "unreachable" once and "back" once, whichever threads noticed. */
  private static void assertOutageLoggedOncePerSubject(Path logFile) throws Exception {
    Map<String, Integer> down = new HashMap<>();
    Map<String, Integer> back = new HashMap<>();
    for (String line : Files.readAllLines(logFile)) {
      Matcher m = OUTAGE.matcher(line);
      if (m.find()) {
        (m.group(2).equals("unreachable") ? down : back).merge(m.group(1), 1, Integer::sum);
      }
    }
    assertEquals(1, down.size(), "one subject, the process itself, logs the outage: " + down);
    down.forEach((subject, n) -> assertEquals(1, n, subject + " logged the outage start " + n + " times"));
    assertEquals(down.keySet(), back.keySet(), "every subject that logged the outage logged its end");
    back.forEach((subject, n) -> assertEquals(1, n, subject + " logged the outage end " + n + " times"));
  }
}

package dev.delayq.supervisor;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.DelayQueue;
import dev.delayq.JobOptions;
import dev.delayq.cli.DelayqLauncher;
import dev.delayq.redis.Inspector;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisConnector;
import dev.delayq.supervisor.testjobs.JobsJar;
import dev.delayq.testing.RedisFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * A real supervisor with its embedded Redis, as a hostile local user would meet it: the
 * redis-server runs from the binary extracted into the home (programs planted where it was or
 * is extracted never run), it requires the password kept in run/ (0600), which no command line
 * shows; the dashboard's API needs the token that {@code status} prints with the URL;
 * {@code bin/delayq} on the same home works with no extra step; a worker count above
 * worker.maxProcesses is refused; child logs rotate by size.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OwnerOnlyProcessTest {
  static final String SHIPPED = "redis-server-6.2.6-v5-linux-amd64";

  @TempDir
  static Path home;
  static SupervisorProcess sup;
  static Map<String, String> env;
  static Path marker;
  static String password;
  static int redisPort;

  @BeforeAll
  static void startWithTheEmbeddedRedisWherePlantedBinariesWait() throws Exception {
    Assumptions.assumeTrue(System.getProperty("os.name").toLowerCase().contains("linux")
        && System.getProperty("os.arch").matches("amd64|x86_64"), "the shipped binary's name is for linux/amd64");
    SupervisorProcess.requireChildJars();
    JobsJar.install(home);
    marker = home.resolve("a-planted-binary-ran");
    // where the old code extracted it (a fixed name in java.io.tmpdir), and where this one does
    plant(home.resolve("tmp/delayq-" + SHIPPED));
    plant(home.resolve("run/bin/" + SHIPPED));
    // a PATH without redis-server, so the shipped binary is used (sleep: the watchdog's)
    Path path = Files.createDirectories(home.resolve("path-without-redis"));
    Files.createSymbolicLink(path.resolve("sleep"), Path.of("/bin/sleep"));
    redisPort = RedisFixture.freePort();
    env = new HashMap<>(Map.of(
        "DELAYQ_QUEUE", RedisFixture.freshQueue(),
        "DELAYQ_WEB_PORT", Integer.toString(SupervisorProcess.freePort()),
        "DELAYQ_REDIS_EMBEDDED_PORT", Integer.toString(redisPort),
        "PATH", path.toString(),
        "DELAYQ_SUPERVISOR_LOG_MAX_BYTES", "4096",
        "DELAYQ_SUPERVISOR_LOG_BACKUPS", "2"));
    sup = SupervisorProcess.start(home, SupervisorProcess.ONE_QUICK_WORKER, env, List.of("-Djava.io.tmpdir=" + Files.createDirectories(home.resolve("tmp"))));
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() ->
        Stream.of("redis", "scheduler", "worker-1").allMatch(n -> sup.state(n).equals("RUNNING")));
    password = Files.readString(home.resolve("run/redis.password")).trim();
  }

  private static void plant(Path where) throws Exception {
    Files.createDirectories(where.getParent());
    Files.writeString(where, "#!/bin/sh\ntouch " + marker + "\nexit 1\n");
    Files.setPosixFilePermissions(where, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  @AfterAll
  static void stopSupervisor() throws Exception {
    if (sup != null) {
      sup.close();
    }
  }

  private static String mode(String runFile) throws Exception {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(home.resolve(runFile)));
  }

  private static long pid(String child) {
    return sup.child(child).orElseThrow().path("pid").asLong();
  }

  private static Keys keys() {
    return new Keys("delayq", env.get("DELAYQ_QUEUE"));
  }

  @Test
  @Order(1)
  void theEmbeddedRedisRunsTheBinaryExtractedIntoTheHomeNeverAPlantedOne() throws Exception {
    Path exe = Files.readSymbolicLink(Path.of("/proc", Long.toString(pid("redis")), "exe"));

    assertEquals(home.resolve("run/bin/" + SHIPPED).toRealPath(), exe);
    assertFalse(Files.exists(marker), "no planted program ran");
    assertEquals("rwx------", mode("run/bin"));
  }

  @Test
  @Order(2)
  void theEmbeddedRedisNeedsThePasswordKeptInRunAndNoCommandLineShowsIt() throws Exception {
    assertTrue(password.matches("[A-Za-z0-9_-]{43}"), password.length() + " characters");
    assertEquals("rwx------", mode("run"));
    assertEquals("rw-------", mode("run/redis.password"));
    assertEquals("rw-------", mode("run/redis.conf"));
    try (Jedis anyone = new Jedis("127.0.0.1", redisPort)) {
      JedisDataException refused = assertThrows(JedisDataException.class, anyone::ping);
      assertTrue(refused.getMessage().startsWith("NOAUTH"), refused.getMessage());
    }
    try (Jedis owner = new Jedis("127.0.0.1", redisPort)) {
      owner.auth(password);
      assertEquals("PONG", owner.ping());
    }

    assertEquals(List.of(), SecretLeaks.inCommandLines(password), "in no process's command line");
    assertTrue(SecretLeaks.environment(pid("worker-1")).contains("DELAYQ_REDIS_URL=redis://:" + password + "@127.0.0.1:"),
        "the children get it in their environment");
    assertEquals(List.of(), SecretLeaks.inFiles(password, home.resolve("logs"), home.resolve("supervisor.out")));
    for (String[] command : List.of(new String[] {"status"}, new String[] {"status", "--json"}, new String[] {"--help"},
        new String[] {"start", "--help"})) {
      SupervisorProcess.CliResult r = sup.run(command);
      assertFalse(r.output().contains(password), String.join(" ", command) + ": " + r.output());
    }
  }

  @Test
  @Order(3)
  void binDelayqOnTheSameHomeReachesTheEmbeddedRedisWithNoExtraStep() throws Exception {
    DelayqLauncher delayq = DelayqLauncher.in(Files.createDirectories(home.resolve("scratch-install")));
    Map<String, String> cliEnv = new HashMap<>(env);
    cliEnv.put("DELAYQ_HOME", home.toString());
    cliEnv.remove("PATH"); // the script needs the usual one
    Runs runs = new Runs(home.resolve("cli-runs.log"));
    String payload = "{\"ms\":0,\"log\":\"" + runs.path() + "\"}";

    DelayqLauncher.Run enqueued = delayq.run(cliEnv, "--config", sup.config.toString(), "enqueue",
        "--type", "test_sleep", "--payload", payload, "--delay", "0s", "--id", "from-the-cli");
    DelayqLauncher.Run stats = delayq.run(cliEnv, "--config", sup.config.toString(), "stats");

    assertEquals(0, enqueued.exit(), enqueued.toString());
    assertEquals("from-the-cli\n", enqueued.out());
    assertEquals(0, stats.exit(), stats.toString());
    assertTrue(stats.out().contains("delayed"), stats.out());
    await().atMost(Duration.ofSeconds(20)).until(() -> !runs.of("end", "from-the-cli").isEmpty());
    assertFalse(enqueued.err().contains(password) || stats.out().contains(password));
  }

  @Test
  @Order(4)
  void statusPrintsTheDashboardUrlWithTheTokenThatTheApiNeedsOnLoopbackToo() throws Exception {
    String token = Files.readString(home.resolve("run/web.token")).trim();
    assertEquals("rw-------", mode("run/web.token"));
    SupervisorProcess.CliResult status = sup.run("status", "--config", sup.config.toString());
    assertTrue(status.output().contains("dashboard " + sup.webUrl() + "/#token=" + token + "\n"), status.output());

    WebClient owner = new WebClient(sup.webUrl(), token);
    WebClient anyone = new WebClient(sup.webUrl());
    assertEquals(200, owner.get("/api/dead").status());
    assertEquals(200, owner.get("/api/status").status());
    assertEquals(401, anyone.get("/api/dead").status(), "payloads and errors need the token");
    assertEquals(401, anyone.get("/api/dead", "Authorization", "Bearer " + token + "x").status(), "a wrong token");
    assertEquals(401, anyone.post("/api/resize", Map.of("workers", 0)).status(), "no action without it");
    assertEquals(401, anyone.post("/api/dead/purge", Map.of()).status());
    assertEquals(403, anyone.post("/api/resize", Map.of("workers", 0), "Authorization", "Bearer " + token,
        "Origin", "http://evil.example").status(), "nor from another origin");
    assertEquals(200, anyone.get("/metrics").status(), "/metrics stays open");
    assertEquals(200, anyone.get("/").status(), "the page itself holds no data");
    assertEquals(1, sup.children("worker").size(), "nothing was resized");
  }

  @Test
  @Order(5)
  void aWorkerCountAboveMaxProcessesIsRefused() throws Exception {
    SupervisorProcess.CliResult reload = sup.run("reload", "--workers", "17", "--config", sup.config.toString());
    SupervisorProcess.CliResult start = sup.run("start", "--workers", "17", "--config", sup.config.toString());

    assertEquals(1, reload.code(), reload.output());
    assertTrue(reload.output().contains("reload refused: workers must be between 0 and worker.maxProcesses (16"),
        reload.output());
    assertEquals(1, start.code(), start.output());
    assertTrue(start.output().contains("--workers must be between 0 and worker.maxProcesses (16), got 17"), start.output());
    assertEquals(1, sup.children("worker").size());
  }

  @Test
  @Order(6)
  void childLogsRotateBySizeKeepingTheirBackups() throws Exception {
    Keys keys = keys();
    Inspector inspector;
    try (UnifiedJedis redis = RedisConnector.open("redis://:" + password + "@127.0.0.1:" + redisPort,
        "owner-test", 4, Duration.ofSeconds(2), Duration.ofSeconds(5))) {
      inspector = new Inspector(redis, keys);
      DelayQueue queue = new DelayQueue(new RedisBroker(redis, keys), 1 << 20, 5);
      Path unlock = home.resolve("never-there");
      for (int i = 0; i < 40; i++) {   // each logs one dead-letter line of about 200 bytes
        queue.delay("test_flaky", Map.of("unlock", unlock.toString(), "log", home.resolve("flaky.log").toString()),
            Duration.ZERO, JobOptions.defaults().maxAttempts(1));
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> inspector.depths().dead() == 40);
    }
    Path logs = home.resolve("logs");
    await().atMost(Duration.ofSeconds(5)).until(() -> Files.exists(logs.resolve("worker-1.log.1")));
    try (Stream<Path> files = Files.list(logs)) {
      for (Path f : files.toList()) {
        assertTrue(Files.size(f) <= 4096, f + " is " + Files.size(f) + " bytes, over supervisor.logMaxBytes");
        assertFalse(f.getFileName().toString().endsWith(".log.3"), "only logBackups (2) are kept: " + f);
      }
    }
    JsonNode worker = sup.child("worker-1").orElseThrow();
    assertEquals("RUNNING", worker.path("state").asText(), "the child never knew");
  }
}

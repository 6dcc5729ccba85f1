package dev.delayq.supervisor;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.delayq.cli.DelayqLauncher;
import dev.delayq.redis.Inspector;
import dev.delayq.redis.Keys;
import dev.delayq.redisserver.RedisBinary;
import dev.delayq.redis.RedisConnector;
import dev.delayq.supervisor.testjobs.JobsJar;
import dev.delayq.testing.RedisFixture;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;

/**
 * A real supervisor on a Redis whose password is full of {@code / @ : %}: after a run with jobs,
 * status, reloads, help and errors, the password is in no log, output or command line. And
 * record data written by a hostile Redis client (a job type, an id, an error text carrying a
 * forged log line and ANSI escapes) comes out as one escaped line in the worker's log, the
 * supervisor's log and the CLI.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SecretsAndLogLinesProcessTest {
  /** What a hostile record carries: a line break, a forged log line, colour and clear-screen escapes. */
  static final String FORGED = "\n[INFO] supervisor stopped\u001b[31m\u001b[2J";
  static final String ESCAPED = "\\n[INFO] supervisor stopped\\u001b[31m\\u001b[2J";

  @TempDir
  static Path home;
  @TempDir
  static Path redisDir;
  static Process redisServer;
  static String core;
  static String password;
  static String url;
  static SupervisorProcess sup;
  static UnifiedJedis redis;
  static Keys keys;
  static DelayqLauncher delayq;

  @BeforeAll
  static void startSupervisorOnARedisWithAPasswordFullOfSeparators() throws Exception {
    SupervisorProcess.requireChildJars();
    JobsJar.install(home);
    core = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());   // what the greps look for
    password = "/@:%" + core + "%:@/";
    int port = RedisFixture.freePort();
    redisServer = new ProcessBuilder(RedisBinary.locate().toString(), "--port", Integer.toString(port),
        "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", redisDir.toString())
        .redirectErrorStream(true).redirectOutput(redisDir.resolve("redis.log").toFile()).start();
    await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> {
      try (Jedis j = new Jedis("127.0.0.1", port)) {
        return j.configSet("requirepass", password).equals("OK");   // not on its command line either
      }
    });
    url = "redis://:" + URLEncoder.encode(password, StandardCharsets.UTF_8) + "@127.0.0.1:" + port;
    redis = RedisConnector.open(url, "secrets-test", 4, Duration.ofSeconds(2), Duration.ofSeconds(5));
    Map<String, String> env = SupervisorProcess.testRedisEnv();
    env.put("DELAYQ_REDIS_URL", url);
    env.put("DELAYQ_QUEUE_HANDLER_WAIT", "1s"); // the hostile type no worker has goes to dead after this
    keys = new Keys("delayq", env.get("DELAYQ_QUEUE"));
    sup = SupervisorProcess.start(home, SupervisorProcess.ONE_QUICK_WORKER, env);
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
        .until(() -> sup.state("scheduler").equals("RUNNING") && sup.state("worker-1").equals("RUNNING"));
    delayq = DelayqLauncher.in(Files.createDirectories(home.resolve("scratch-install")));
  }

  @AfterAll
  static void stopAll() throws Exception {
    if (sup != null) {
      sup.close();
    }
    if (redis != null) {
      redis.close();
    }
    if (redisServer != null) {
      redisServer.destroyForcibly();
      redisServer.waitFor(10, TimeUnit.SECONDS);
    }
  }

  /** Writes a due record straight into Redis, as any client with the password could. */
  static void plantDueRecord(String id, String type, Map<String, Object> payload) throws Exception {
    long now = System.currentTimeMillis();
    Map<String, Object> record = new LinkedHashMap<>();
    record.put("type", type);
    record.put("attempt", 1);
    record.put("maxAttempts", 1);
    record.put("createdAt", now);
    record.put("dueAt", now);
    record.put("payload", payload);
    redis.hset(keys.jobs(), id, new ObjectMapper().writeValueAsString(record));
    redis.zadd(keys.delayed(), now, id);
  }

  static Map<String, String> cliEnv() {
    return Map.of("DELAYQ_REDIS_URL", url, "DELAYQ_QUEUE", keys.queue());
  }

  /** Every line of {@code text} that mentions the forged one must hold it escaped. */
  static void assertForgedLinesEscaped(String where, String text, int atLeast) {
    assertFalse(text.contains("\u001b"), where + " holds a raw ESC");
    List<String> mentions = text.lines().filter(l -> l.contains("[INFO] supervisor stopped")).toList();
    assertTrue(mentions.size() >= atLeast, where + " should mention it " + atLeast + "+ times: " + mentions);
    for (String line : mentions) {
      assertFalse(line.startsWith("[INFO] supervisor stopped"), where + ": a forged line: " + line);
      assertTrue(line.contains(ESCAPED), where + ": not escaped: " + line);
    }
  }

  @Test
  @Order(1)
  void aHostileTypeIdAndErrorTextEachGiveOneEscapedLine() throws Exception {
    String evilId = "id-evil" + FORGED;
    plantDueRecord("type-evil", "order" + FORGED, Map.of());
    plantDueRecord(evilId, "test_flaky", Map.of("unlock", "/nonexistent" + FORGED,
        "log", home.resolve("flaky.log").toString()));
    Inspector inspector = new Inspector(redis, keys);
    await().atMost(Duration.ofSeconds(20)).until(() -> inspector.depths().dead() == 2);

    WebClient web = new WebClient(sup.webUrl(), sup.webToken());
    WebClient.Answer retried = web.post("/api/dead/" + URLEncoder.encode(evilId, StandardCharsets.UTF_8)
        .replace("+", "%20") + "/retry", null);
    assertEquals(200, retried.status(), retried.body());
    await().atMost(Duration.ofSeconds(20)).until(() -> inspector.depths().dead() == 2
        && sup.output().contains("web: dead job id-evil"));

    // the worker logged the unknown type, and the failures of the hostile id with its error
    assertForgedLinesEscaped("worker-1.log", sup.log("worker-1"), 3);
    assertForgedLinesEscaped("the supervisor's log", sup.output(), 1);
    DelayqLauncher.Run list = delayq.run(cliEnv(), "dead", "list");
    assertEquals(0, list.exit(), list.toString());
    assertForgedLinesEscaped("dead list", list.out(), 2);
    assertEquals(3, list.out().lines().count(), "a header and one line per dead job: " + list.out());
    DelayqLauncher.Run inspect = delayq.run(cliEnv(), "inspect", evilId);
    assertEquals(0, inspect.exit(), inspect.toString());
    assertForgedLinesEscaped("inspect", inspect.out(), 2);
    assertTrue(inspect.out().contains("id          id-evil" + ESCAPED + "\n"), inspect.out());
  }

  @Test
  @Order(2)
  void theRedisPasswordAppearsInNoLogOutputOrCommandLineWhateverItHolds() throws Exception {
    List<String> outputs = new ArrayList<>();
    for (String[] command : List.of(new String[] {"status"}, new String[] {"status", "--json"},
        new String[] {"reload", "--workers", "1"}, new String[] {"--help"}, new String[] {"start", "--help"},
        new String[] {"status", "--help"})) {
      List<String> args = new ArrayList<>(List.of(command));
      if (!args.contains("--help")) {
        args.addAll(List.of("--config", sup.config.toString()));
      }
      SupervisorProcess.CliResult r = sup.run(args.toArray(String[]::new));
      outputs.add(String.join(" ", command) + " -> " + r.code() + "\n" + r.output());
    }
    assertTrue(outputs.get(2).startsWith("reload --workers 1 -> 0"), outputs.get(2));
    Map<String, String> badScheme = new HashMap<>(cliEnv());
    badScheme.put("DELAYQ_REDIS_URL", url.replace("redis://", "http://"));
    Map<String, String> unreachable = new HashMap<>(cliEnv());
    unreachable.put("DELAYQ_REDIS_URL", url.replaceFirst(":\\d+$", ":" + RedisFixture.freePort()));
    Map<String, String> notEncoded = new HashMap<>(cliEnv());
    notEncoded.put("DELAYQ_REDIS_URL", "redis://:" + password + "@127.0.0.1:6390");   // raw / and @: no valid URL
    DelayqLauncher.Run raw = delayq.run(notEncoded, "stats");
    DelayqLauncher.Run stats = delayq.run(cliEnv(), "stats");
    DelayqLauncher.Run help = delayq.run(cliEnv(), "--help");
    DelayqLauncher.Run bad = delayq.run(badScheme, "stats");
    DelayqLauncher.Run down = delayq.run(unreachable, "stats");
    DelayqLauncher.Run onCommandLine = delayq.run(Map.of("DELAYQ_QUEUE", keys.queue()), "--redis-url", url, "stats");
    for (DelayqLauncher.Run r : List.of(raw, stats, help, bad, down, onCommandLine)) {
      outputs.add(r.toString());
    }
    assertEquals(2, raw.exit(), raw.toString());
    assertTrue(raw.err().contains("'redis://:***@127.0.0.1:6390'"), raw.err());
    assertEquals(0, stats.exit(), stats.toString());
    assertEquals(2, bad.exit(), bad.toString());
    assertTrue(bad.err().contains("http://:***@127.0.0.1:"), "the refused URL is shown redacted: " + bad.err());
    assertEquals(3, down.exit(), down.toString());
    assertTrue(down.err().contains("redis://:***@127.0.0.1:"), down.err());
    assertTrue(onCommandLine.err().contains("warning: the password in --redis-url") && onCommandLine.exit() == 0,
        onCommandLine.toString());
    assertTrue(sup.output().contains("Redis redis://:***@127.0.0.1:"), "the supervisor names its Redis redacted");

    for (String output : outputs) {
      assertFalse(output.contains(core), "the password shows in: " + output);
    }
    assertEquals(List.of(), SecretLeaks.inCommandLines(core), "no process has it on its command line");
    try (Stream<Path> all = Files.walk(home)) {
      assertTrue(all.count() > 10, "the home holds the run's logs and outputs");
    }
    assertEquals(List.of(), SecretLeaks.inFiles(core, home), "no file of the home (logs, outputs) holds it");
  }
}

package dev.delayq.supervisor;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.cli.DelayqCli;
import dev.delayq.config.ConfigLoader;
import dev.delayq.redis.RedisConnection;
import dev.delayq.redis.RedisConnector;
import dev.delayq.supervisor.testjobs.JobsJar;
import dev.delayq.redisserver.RedisServer;
import dev.delayq.redisserver.TestCa;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The TLS keys reach every process: a supervisor whose scheduler and worker run on a Redis that
 * takes only TLS with a client certificate and an ACL password, and {@code bin/delayq} with the
 * same DELAYQ_REDIS_* variables, enqueueing a job the worker runs. The password is in no
 * process's command line.
 */
class TlsRedisProcessTest {
  private static final String PASSWORD = "tls-s3cret-pw";

  @TempDir
  Path dir;

  @Test
  void supervisorChildrenAndTheCliWorkOnTlsWithAClientCertificate() throws Exception {
    SupervisorProcess.requireChildJars();
    Files.createDirectories(dir.resolve("ca"));
    TestCa ca = TestCa.create(dir.resolve("ca"), "delayq test CA");
    TestCa.Files client = ca.issue("client");
    try (RedisServer redis = RedisServer.startTls(ca.issue("server", "IP:127.0.0.1"), true)) {
      Map<String, String> env = SupervisorProcess.testRedisEnv();
      env.put("DELAYQ_REDIS_URL", "rediss://:" + PASSWORD + "@127.0.0.1:" + redis.port());
      env.put("DELAYQ_REDIS_TLS_CA_FILE", ca.cert().toString());
      env.put("DELAYQ_REDIS_TLS_CERT_FILE", client.cert().toString());
      env.put("DELAYQ_REDIS_TLS_KEY_FILE", client.key().toString());
      Path home = dir.resolve("home");
      JobsJar.install(home);
      setPassword(redis, ca, client);

      try (SupervisorProcess sup = SupervisorProcess.start(home, """
          worker:
            processes: 1
            threads: 2
            pollTimeout: 500ms
          jvm:
            worker: "-Xms32m -Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1"
            scheduler: "-Xms16m -Xmx96m -XX:+UseSerialGC -XX:TieredStopAtLevel=1"
          """, env)) {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
            .until(() -> sup.status().map(s -> {
              int up = 0;
              for (JsonNode c : s.path("children")) {
                up += c.path("state").asText().equals("RUNNING") ? 1 : 0;
              }
              return up == 2;
            }).orElse(false));

        Path runs = dir.resolve("runs.log");
        Process cli = delayq(env, dir, "enqueue", "--type", "test_sleep",
            "--payload", "{\"log\":\"" + runs + "\"}", "--delay", "0s", "--id", "over-tls");
        assertTrue(cli.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, cli.exitValue(), Files.readString(dir.resolve("cli.out")));
        await().atMost(Duration.ofSeconds(20)).until(() -> Files.exists(runs)
            && Files.readString(runs).contains("end over-tls 1"));

        List<Long> pids = new ArrayList<>(List.of(sup.process.pid()));
        for (JsonNode c : sup.status().orElseThrow().path("children")) {
          pids.add(c.path("pid").asLong());
        }
        for (long pid : pids) {
          String cmdline = Files.readString(Path.of("/proc/" + pid + "/cmdline"));
          assertFalse(cmdline.contains(PASSWORD), "pid " + pid + " has the password in its argv");
        }
      }
    }
  }

  /** Requires the password of the default user, over TLS with the client certificate. */
  private static void setPassword(RedisServer redis, TestCa ca, TestCa.Files client) throws Exception {
    Map<String, String> env = new HashMap<>(Map.of(
        "DELAYQ_REDIS_URL", "rediss://127.0.0.1:" + redis.port(),
        "DELAYQ_REDIS_TLS_CA_FILE", ca.cert().toString(),
        "DELAYQ_REDIS_TLS_CERT_FILE", client.cert().toString(),
        "DELAYQ_REDIS_TLS_KEY_FILE", client.key().toString()));
    try (RedisConnection c = RedisConnector.connect(new ConfigLoader().load(null, env), "tls-admin", 1)) {
      c.client().configSet("requirepass", PASSWORD);
    }
  }

  /** {@code bin/delayq ARGS} as its own JVM (the launcher's main class, this classpath). */
  private static Process delayq(Map<String, String> env, Path dir, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx96m",
        "-cp", System.getProperty("java.class.path"), DelayqCli.class.getName()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(dir.resolve("cli.out").toFile());
    pb.environment().keySet().removeIf(k -> k.startsWith("DELAYQ_"));
    pb.environment().putAll(env);
    return pb.start();
  }
}

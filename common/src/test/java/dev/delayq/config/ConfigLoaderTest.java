package dev.delayq.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@link ConfigLoader}: shipped defaults, file and environment overrides, and refusals. */
class ConfigLoaderTest {
  private final ConfigLoader loader = new ConfigLoader();

  @TempDir
  Path dir;

  private Path yaml(String text) throws IOException {
    return new ConfigFiles(dir).yaml(text);
  }

  /** Loads and expects a refusal whose message contains each part. */
  private ConfigException refused(Path file, Map<String, String> env, String... parts) {
    return new ConfigFiles(dir).refused(file, env, parts);
  }

  @Test
  void defaultsAreTheDesignDefaults() {
    DelayqConfig c = loader.load(null, Map.of());

    assertEquals(1000, c.scheduler().batchSize());
    assertEquals(Duration.ofSeconds(5), c.worker().heartbeatInterval());
    assertEquals(Duration.ofSeconds(30), c.worker().heartbeatTtl());
    assertEquals(Duration.ofSeconds(60), c.worker().jobTimeout());
    assertEquals(Duration.ofSeconds(10), c.worker().interruptGrace());
    assertEquals(3, c.worker().poisonPillAfter());
    assertEquals(Duration.ofSeconds(25), c.worker().drainTimeout());
    assertEquals(Duration.ofSeconds(30), c.supervisor().stopTimeout());
    assertEquals(Duration.ofSeconds(1), c.supervisor().restartBackoffMin());
    assertEquals(Duration.ofSeconds(60), c.supervisor().restartBackoffMax());
    assertEquals(Duration.ofMinutes(10), c.supervisor().restartResetAfter());
    assertEquals(5, c.supervisor().restartIntensity());
    assertEquals(Duration.ofSeconds(60), c.supervisor().restartPeriod());
    assertEquals(5, c.retry().maxAttempts());
    assertEquals(Duration.ofSeconds(2), c.retry().baseDelay());
    assertEquals(1_048_576, c.queue().maxPayloadBytes());
  }

  @Test
  void defaultsRunAnEmbeddedRedisOnTheDefaultQueue() {
    DelayqConfig c = loader.load(null, Map.of());

    assertTrue(c.redis().embedded());
    assertEquals("redis://127.0.0.1:6390", c.redisUrl());
    assertTrue(c.redis().requireNoeviction());
    assertEquals("default", c.queue().name());
    assertEquals("delayq", c.queue().keyPrefix());
    assertEquals(List.of("-Xms32m", "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:+ExitOnOutOfMemoryError"),
        c.jvm().schedulerOptions());
    assertEquals(List.of("-Xms64m", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:+ExitOnOutOfMemoryError"), c.jvm().workerOptions(),
        "a worker out of memory exits, so its jobs are taken back and it is restarted");
  }

  @Test
  void fileOverridesOnlyTheKeysItNames() throws IOException {
    Path file = yaml("""
        queue:
          name: orders
        worker:
          threads: 3
          drainTimeout: 40s
        """);

    DelayqConfig c = loader.load(file, Map.of());

    assertEquals("orders", c.queue().name());
    assertEquals(3, c.worker().threads());
    assertEquals(Duration.ofSeconds(40), c.worker().drainTimeout());
    assertEquals(2, c.worker().processes(), "untouched keys keep their defaults");
    assertEquals("delayq", c.queue().keyPrefix());
  }

  @Test
  void emptyFileMeansDefaults() throws IOException {
    assertEquals(loader.load(null, Map.of()), loader.load(yaml(""), Map.of()));
  }

  @Test
  void environmentOverridesTheFile() throws IOException {
    Path file = yaml("""
        redis:
          url: redis://file-host:6379
        queue:
          name: from-file
        worker:
          threads: 3
        """);

    DelayqConfig c = loader.load(file, Map.of(
        "DELAYQ_REDIS_URL", "redis://env-host:6380/2",
        "DELAYQ_QUEUE", "from-env",
        "DELAYQ_WORKER_THREADS", "12",
        "DELAYQ_WORKER_DRAIN_TIMEOUT", "40s",
        "DELAYQ_REDIS_REQUIRE_NOEVICTION", "false",
        "PATH", "/usr/bin",
        "DELAYQ_TEST_REDIS_URL", "ignored: not a config key"));

    assertEquals("redis://env-host:6380/2", c.redisUrl());
    assertEquals("from-env", c.queue().name());
    assertEquals(12, c.worker().threads());
    assertEquals(Duration.ofSeconds(40), c.worker().drainTimeout());
    assertFalse(c.redis().requireNoeviction());
  }

  @Test
  void environmentNamesAreUpperSnakeCaseOfSectionAndKey() {
    assertEquals("DRAIN_TIMEOUT", ConfigLoader.snake("drainTimeout"));
    assertEquals("MAX_PAYLOAD_BYTES", ConfigLoader.snake("maxPayloadBytes"));
    assertEquals("WORKER", ConfigLoader.snake("worker"));
  }

  @Test
  void queueLimitsAreReadAsTheClaimScriptsTakeThem() throws IOException {
    DelayqConfig c = loader.load(yaml("queue:\n  limits:\n    - type: payment_check\n      rate: 50/1s\n"
        + "      key: merchant_id\n    - type: stock_release\n      concurrency: 10\n"), Map.of());
    assertEquals("payment_check 50 1000 merchant_id 0\nstock_release 0 0 - 10\n", Limit.spec(c.queue().limits()));
    assertEquals(java.util.List.of(), loader.load(null, Map.of()).queue().limits(), "none by default");
  }

  @Test
  void badQueueLimitsAreRefusedNamingWhatIsWrong() throws IOException {
    refused(yaml("queue:\n  limits:\n    - type: pay\n      rate: fast\n"), Map.of(),
        "queue.limits.rate", "'fast' for type pay is not N/PERIOD");
    refused(yaml("queue:\n  limits:\n    - type: pay\n"), Map.of(), "type pay has neither a rate nor a concurrency");
    refused(yaml("queue:\n  limits:\n    - type: pay\n      concurrency: 1\n    - type: pay\n      rate: 1/1s\n"),
        Map.of(), "queue.limits", "type pay is listed twice");
    refused(yaml("queue:\n  limits:\n    - type: pay\n      concurrency: 1\n      burst: 3\n"), Map.of(), "burst");
  }

  @Test
  void zeroThreadsIsRefusedWithKeyValueAndWhy() throws IOException {
    refused(yaml("worker:\n  threads: 0\n"), Map.of(), "worker.threads", "= 0", "must be between 1 and 1024");
  }

  @Test
  void durationThatIsNotOneIsRefusedWithKeyValueAndWhy() throws IOException {
    refused(yaml("worker:\n  drainTimeout: soon\n"), Map.of(),
        "worker.drainTimeout", "soon", "is not a duration", "30s");
  }

  @Test
  void nonRedisUrlIsRefusedWithKeyValueAndWhy() throws IOException {
    refused(yaml("redis:\n  url: \"http://x\"\n"), Map.of(), "redis.url", "http://x", "redis://");
  }

  @Test
  void unknownKeyIsRefusedWithKeyValueAndWhy() throws IOException {
    refused(yaml("worker:\n  threadz: 4\n"), Map.of(), "worker.threadz", "4", "unknown", "threads");
  }

  @Test
  void unknownSectionIsRefusedWithKeyAndWhy() throws IOException {
    refused(yaml("workers:\n  threads: 4\n"), Map.of(), "workers", "unknown", "worker");
  }

  @Test
  void badEnvironmentValueIsRefusedWithKeyValueAndWhy() {
    refused(null, Map.of("DELAYQ_WORKER_THREADS", "lots"), "worker.threads", "lots", "int");
    refused(null, Map.of("DELAYQ_REDIS_URL", "http://x"), "redis.url", "http://x", "redis://");
  }

  @Test
  void badValueInAFileNamesTheFile() throws IOException {
    Path file = yaml("worker:\n  threads: 0\n");

    refused(file, Map.of(), file.toString());
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "worker:\\n  heartbeatInterval: 20s\\n | worker.heartbeatTtl | at least twice heartbeatInterval",
      "scheduler:\\n  batchSize: 5001\\n | scheduler.batchSize | between 1 and 5000",
      "queue:\\n  name: \"has space\"\\n | queue.name | does not match",
      "retry:\\n  jitter: 1.5\\n | retry.jitter | fraction",
      "supervisor:\\n  restartBackoffMin: 500ms\\n | supervisor.restartBackoffMin | at least 1s",
      "worker: 3\\n | worker | must be a section",
      "worker:\\n  threads: [1, 2]\\n | worker.threads | int",
      "redis:\\n  url: [unclosed\\n | not valid YAML | delayq.yml"})
  void otherBadValuesAreRefusedNamingTheKey(String text, String key, String why) throws IOException {
    refused(yaml(text.replace("\\n", "\n")), Map.of(), key, why);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "DELAYQ_REDIS_TLS_CA_FILE=/ca.pem | redis.tlsCaFile | must start with rediss://",
      "DELAYQ_REDIS_URL=rediss://h:1;DELAYQ_REDIS_TLS_CERT_FILE=/c.pem | redis.tlsKeyFile | needs both tlsCertFile and tlsKeyFile",
      "DELAYQ_REDIS_SENTINELS=10.0.0.1:26379,10.0.0.2 | redis.sentinels | is not host:port",
      "DELAYQ_REDIS_SENTINELS=10.0.0.1:26379 | redis.masterName | required with sentinels",
      "DELAYQ_REDIS_MASTER_NAME=mymaster | redis.masterName | sentinels is empty",
      "DELAYQ_REDIS_REPLICA_ACKS=-1 | redis.replicaAcks | between 0 and 100",
      "DELAYQ_REDIS_REPLICA_ACKS_TIMEOUT=5s | redis.replicaAcksTimeout | shorter than socketTimeout",
      "DELAYQ_WORKER_POLL_TIMEOUT=5s | worker.pollTimeout | shorter than redis.socketTimeout (5s)",
      "DELAYQ_REDIS_SOCKET_TIMEOUT=800ms;DELAYQ_REDIS_REPLICA_ACKS_TIMEOUT=300ms | worker.pollTimeout | shorter than redis.socketTimeout (800ms)"})
  void badRedisTopologyValuesAreRefusedNamingTheKey(String vars, String key, String why) {
    Map<String, String> env = new HashMap<>();
    for (String pair : vars.split(";")) {
      String[] kv = pair.split("=", 2);
      env.put(kv[0], kv[1]);
    }
    refused(null, env, key, why);
  }

  @Test
  void sentinelsAndMasterNameReplaceTheEmbeddedRedis() {
    DelayqConfig c = loader.load(null, Map.of("DELAYQ_REDIS_SENTINELS", "10.0.0.1:26379, 10.0.0.2:26379",
        "DELAYQ_REDIS_MASTER_NAME", "mymaster", "DELAYQ_REDIS_REPLICA_ACKS", "1"));
    assertFalse(c.redis().embedded());
    assertEquals(List.of("10.0.0.1:26379", "10.0.0.2:26379"), c.redis().sentinelNodes());
    assertEquals(1, c.redis().replicaAcks());
    assertTrue(c.redis().tlsVerifyHostname(), "host names are verified unless turned off");
  }

  @Test
  void aRefusedRedisUrlIsShownWithoutItsPasswordWhateverItHolds() throws IOException {
    String password = "p/@:%9f3Xq/@:%";
    ConfigException e = refused(null, Map.of("DELAYQ_REDIS_URL", "http://:" + password + "@host:6379"),
        "redis.url", "http://:***@host:6379", "redis://");
    assertFalse(e.getMessage().contains("9f3Xq"), e.getMessage());
    ConfigException inFile = refused(yaml("redis:\n  url: \"redis//:" + password + "@host\"\n"), Map.of(), "redis.url");
    assertFalse(inFile.getMessage().contains("9f3Xq"), inFile.getMessage());
  }

  @Test
  void aRefusedTokenIsNotShown() throws IOException {
    ConfigException e = refused(yaml("web:\n  token: [\"t0ps3cret\"]\n"), Map.of(), "web.token");
    assertFalse(e.getMessage().contains("t0ps3cret"), e.getMessage());
  }

  @Test
  void workerProcessesAboveMaxProcessesAreRefusedNamingBoth() throws IOException {
    assertEquals(16, loader.load(null, Map.of()).worker().maxProcesses());
    refused(yaml("worker:\n  processes: 20\n"), Map.of(), "worker.processes", "20", "maxProcesses (16)");
    assertEquals(20, loader.load(yaml("worker:\n  processes: 20\n  maxProcesses: 32\n"), Map.of())
        .worker().processes());
  }

  @Test
  void logRotationAndTheMetricTypeCapHaveDefaults() {
    DelayqConfig c = loader.load(null, Map.of());

    assertEquals(10L << 20, c.supervisor().logMaxBytes());
    assertEquals(5, c.supervisor().logBackups());
    assertEquals(50, c.web().maxMetricTypes());
  }

  @Test
  void aYamlSyntaxErrorNamesTheFileLineAndColumn() throws IOException {
    Path file = yaml("""
        worker:
          threads: 4
         drainTimeout: 10s
        """);

    ConfigException e = refused(file, Map.of(), file.toString(), "not valid YAML at line 3, column 2",
        "block mapping that starts at line 1, column 1");
    assertFalse(e.getMessage().contains("\n"), e.getMessage());
  }

  @Test
  void missingFileIsRefused() {
    Path missing = dir.resolve("nope.yml");

    refused(missing, Map.of(), missing.toString(), "not found");
  }
}

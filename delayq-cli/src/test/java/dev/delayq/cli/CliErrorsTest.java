package dev.delayq.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.redisserver.RedisServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What every command does with Redis down, bad usage, bad config, --help and --verbose. */
class CliErrorsTest {
  private static final List<List<String>> EVERY_COMMAND = List.of(
      List.of("enqueue"), List.of("cancel"), List.of("inspect"), List.of("stats"), List.of("dead"),
      List.of("dead", "list"), List.of("dead", "retry"), List.of("dead", "purge"), List.of("check"),
      List.of("recover"), List.of("completion"), List.of("batch"), List.of("batch", "inspect"), List.of("batch", "list"));

  private final Cli cli = new Cli();

  @TempDir
  Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"stats", "check", "recover", "cancel x", "inspect x", "dead list",
      "dead retry x", "dead retry --all", "dead purge", "batch inspect x", "batch list"})
  void redisUnreachableIsOneLineWithoutStackAndExitThree(String command) throws IOException {
    Cli down = Cli.unreachable();

    Cli.Result r = down.run(command.split(" "));

    assertEquals(3, r.exit(), r.toString());
    assertEquals(1, r.err().lines().count(), r.err());
    assertTrue(r.err().startsWith("delayq: cannot reach Redis at redis://127.0.0.1:"), r.err());
    assertEquals("", r.out());
  }

  @Test
  void verboseAddsTheStackTrace() throws IOException {
    Cli.Result r = Cli.unreachable().run("--verbose", "stats");

    assertEquals(3, r.exit());
    assertTrue(r.err().contains("\tat redis.clients.jedis."), r.err());
  }

  @Test
  void embeddedRedisNotRunningHintsAtTheSupervisor() throws IOException {
    cli.env.remove("DELAYQ_REDIS_URL");
    cli.env.put("DELAYQ_REDIS_EMBEDDED_PORT", Integer.toString(dev.delayq.testing.RedisFixture.freePort()));

    Cli.Result r = cli.run("stats");

    assertEquals(3, r.exit());
    assertTrue(r.err().endsWith("(is bin/delayq-supervisor running?)\n"), r.err());
  }

  @Test
  void aRedisThatAsksForAPasswordNamesThePasswordFileAndTheVariable() {
    try (RedisServer locked = RedisServer.start("--requirepass", "s3cret-pass")) {
      for (String url : List.of("redis://127.0.0.1:" + locked.port(), "redis://:wrong-pass@127.0.0.1:" + locked.port())) {
        cli.env.put("DELAYQ_REDIS_URL", url);

        Cli.Result r = cli.run("stats");

        assertEquals(3, r.exit(), r.toString());
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.err().contains(url.startsWith("redis://:") ? "WRONGPASS" : "NOAUTH"), r.err());
        assertTrue(r.err().contains("run/redis.password") && r.err().contains("DELAYQ_REDIS_URL"), r.err());
        assertTrue(!r.err().contains("s3cret-pass") && !r.err().contains("wrong-pass"), r.err());
      }
    }
  }

  @Test
  void tlsToAPlainPortFailsFastSayingThePortDoesNotSpeakTls() {
    String plain = cli.env.get("DELAYQ_REDIS_URL");
    String hostPort = plain.substring("redis://".length());
    cli.env.put("DELAYQ_REDIS_URL", "rediss://" + hostPort);

    long began = System.nanoTime();
    Cli.Result r = cli.run("stats");
    long tookMs = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began);

    assertEquals(3, r.exit(), r.toString());
    assertEquals(1, r.err().lines().count(), r.err());
    assertTrue(r.err().contains("TLS connection to " + hostPort + " refused: " + hostPort + " gave no reply to "
        + "the TLS handshake"), r.err());
    assertTrue(r.err().contains("does not speak TLS (a plain port? then the url is redis://, not rediss://)"), r.err());
    assertTrue(tookMs < 4_000, "refused after " + tookMs + " ms (one handshake of redis.connectTimeout, 2 s)");
  }

  @Test
  void anUnknownDelayqVariableIsWarnedAboutWithTheNearestKnownOne() {
    cli.env.put("DELAYQ_WORKER_THREADZ", "4");

    Cli.Result r = cli.run("stats");

    assertEquals(0, r.exit(), r.toString());
    assertTrue(r.err().startsWith("delayq: warning: DELAYQ_WORKER_THREADZ is not a delayq variable and is "
        + "ignored; did you mean DELAYQ_WORKER_THREADS (worker.threads)?\n"), r.err());
    assertEquals(1, r.err().lines().count(), "once: " + r.err());
  }

  @Test
  void aPasswordOnTheCommandLineIsWarnedAboutWithWhereItBelongs() {
    String url = cli.env.remove("DELAYQ_REDIS_URL").replace("redis://", "redis://:not-needed@");

    Cli.Result r = cli.run("--redis-url", url, "stats");

    assertTrue(r.err().startsWith("delayq: warning: the password in --redis-url can be read by every user"), r.err());
    assertTrue(r.err().contains("DELAYQ_REDIS_URL") && r.err().contains("config file"), r.err());
    assertTrue(!r.err().contains("not-needed"), "the warning does not repeat it: " + r.err());
    Cli.Result plain = cli.run("--redis-url", url.replace(":not-needed@", ""), "stats");
    assertEquals(0, plain.exit(), plain.toString());
    assertEquals("", plain.err(), "no warning without a password");
  }

  @Test
  void everyCommandHasHelpWithItsExitCodes() {
    for (List<String> command : EVERY_COMMAND) {
      String[] args = java.util.stream.Stream.concat(command.stream(), java.util.stream.Stream.of("--help"))
          .toArray(String[]::new);
      Cli.Result r = cli.run(args);
      assertEquals(0, r.exit(), command + ": " + r);
      assertTrue(r.out().startsWith("Usage: delayq " + String.join(" ", command)), command + ": " + r.out());
      assertTrue(r.out().contains("Exit codes:"), command + ": " + r.out());
    }
  }

  @Test
  void unknownCommandOrOptionIsOneLineAndExitTwo() {
    Cli.Result r = cli.run("frobnicate");
    assertEquals(2, r.exit());
    assertEquals("delayq: Unmatched argument at index 0: 'frobnicate' (see 'delayq --help')\n", r.err());

    Cli.Result option = cli.run("stats", "--jsn");
    assertEquals(2, option.exit());
    assertEquals(1, option.err().lines().count(), option.err());
    assertEquals(2, cli.run().exit());
  }

  @Test
  void badConfigValueOrMissingConfigFileIsExitTwo() throws IOException {
    Path config = dir.resolve("delayq.yml");
    Files.writeString(config, "redis:\n  socketTimeout: soon\n");

    Cli.Result r = cli.run("--config", config.toString(), "stats");
    Cli.Result missing = cli.run("--config", dir.resolve("nope.yml").toString(), "stats");

    assertEquals(2, r.exit(), r.toString());
    assertEquals(1, r.err().lines().count(), r.err());
    assertTrue(r.err().contains("socketTimeout"), r.err());
    assertEquals(2, missing.exit());
    assertTrue(missing.err().endsWith("nope.yml: not found\n"), missing.err());
  }

  @Test
  void queueOptionPicksTheQueue() {
    Cli other = new Cli();
    other.probe.seedDelayed("elsewhere", 60_000);

    assertEquals(0, cli.run("--queue", other.queue, "inspect", "elsewhere").exit());
    assertEquals(1, cli.run("inspect", "elsewhere").exit());
  }

  @Test
  void completionPrintsABashScriptCoveringTheCommands() {
    Cli.Result r = cli.run("completion");

    assertEquals(0, r.exit());
    assertTrue(r.out().startsWith("#!/usr/bin/env bash"), r.out());
    assertTrue(r.out().contains("complete -F _complete_delayq"), r.out());
    for (String command : List.of("enqueue", "cancel", "inspect", "stats", "dead", "check", "recover")) {
      assertTrue(r.out().contains(command), command);
    }
  }
}

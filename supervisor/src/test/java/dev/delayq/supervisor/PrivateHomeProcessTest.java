package dev.delayq.supervisor;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.DelayQueue;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisConnector;
import dev.delayq.testing.RedisFixture;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.UnifiedJedis;

/**
 * The supervisor's home as a hostile local user ({@code nobody}, see {@link OtherUser}) would
 * prepare it for root's supervisor: directories of theirs or open to them are refused at start,
 * naming the path; links planted where the supervisor writes are refused, never written
 * through; a control socket of theirs is not believed by {@code stop} or {@code status}; and a
 * start under umask 022 leaves nothing they can read.
 */
class PrivateHomeProcessTest {
  static final String NO_WORKERS = SupervisorProcess.quickWorkers(0, 1);

  @TempDir
  Path tmp;

  /** A home others can walk into (0755, as a checkout is), as the README's set-up has it. */
  private Path openHome() throws Exception {
    Path home = Files.createDirectories(tmp.resolve("home"));
    Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwxr-xr-x"));
    return home;
  }

  /** Starts a supervisor on the test Redis and waits for it to end; fails if it keeps running. */
  private static SupervisorProcess.CliResult startExpectingRefusal(Path home) throws Exception {
    try (SupervisorProcess sup = SupervisorProcess.start(home, NO_WORKERS, SupervisorProcess.testRedisEnv())) {
      boolean ended = sup.process.waitFor(60, TimeUnit.SECONDS);
      assertTrue(ended, "the supervisor started instead of refusing:\n" + sup.output());
      return new SupervisorProcess.CliResult(sup.process.exitValue(), sup.output());
    }
  }

  private static String mode(Path path) throws Exception {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS));
  }

  @ParameterizedTest
  @ValueSource(strings = {"run", "logs", "data"})
  void aDirectoryOfTheHomeThatAnotherUserOwnsIsRefusedAtStartNamingIt(String name) throws Exception {
    OtherUser.assumeAvailable();
    SupervisorProcess.requireChildJars();
    Path home = openHome();
    Path dir = Files.createDirectories(home.resolve(name));
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    OtherUser.give(dir);

    SupervisorProcess.CliResult start = startExpectingRefusal(home);

    assertEquals(1, start.code(), start.output());
    assertTrue(start.output().contains("refusing " + dir + ": it belongs to nobody (mode 0755), not to root"),
        start.output());
    assertFalse(Files.exists(home.resolve("run/supervisor.pid"), LinkOption.NOFOLLOW_LINKS), "no PID file written");
    assertFalse(Files.exists(home.resolve("logs/scheduler.log"), LinkOption.NOFOLLOW_LINKS), "no child started");
  }

  @ParameterizedTest
  @ValueSource(strings = {"run", "logs", "data"})
  void aDirectoryOfTheHomeThatOthersCanWriteIsRefusedAtStartNamingIt(String name) throws Exception {
    SupervisorProcess.requireChildJars();
    Path home = openHome();
    Path dir = Files.createDirectories(home.resolve(name));
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));

    SupervisorProcess.CliResult start = startExpectingRefusal(home);

    assertEquals(1, start.code(), start.output());
    assertTrue(start.output().contains("refusing " + dir + ": others than its owner " + System.getProperty("user.name")
        + " can write it (mode 0777)"), start.output());
    assertTrue(start.output().contains("chmod 700 " + dir), "it says what to do: " + start.output());
    assertEquals("rwxrwxrwx", mode(dir), "left as it is, for the operator to look at");
  }

  @Test
  void aHomeThatAnotherUserOwnsIsRefusedAtStartNamingIt() throws Exception {
    OtherUser.assumeAvailable();
    SupervisorProcess.requireChildJars();
    Path home = openHome();
    for (String name : List.of("run", "logs", "data")) {
      Files.createDirectories(home.resolve(name), PosixFilePermissions.asFileAttribute(
          PosixFilePermissions.fromString("rwx------")));
    }
    OtherUser.give(home);

    SupervisorProcess.CliResult start = startExpectingRefusal(home);

    assertEquals(1, start.code(), start.output());
    assertTrue(start.output().contains("refusing " + home.resolve("run") + ": " + home + ", on the way to "
        + home.resolve("run") + ", belongs to nobody (mode 0755), not to root"), start.output());
    assertFalse(Files.exists(home.resolve("run/supervisor.pid")), "no PID file written");
  }

  @ParameterizedTest
  @ValueSource(strings = {"run/supervisor.pid", "run/supervisor.sock", "logs/scheduler.log", "data/appendonlydir"})
  void aLinkPlantedWhereTheSupervisorWritesIsRefusedAndNotWrittenThrough(String planted) throws Exception {
    SupervisorProcess.requireChildJars();
    Path home = openHome();
    Path target = tmp.resolve("root-only");
    Files.writeString(target, "root's own\n");
    Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rw-------"));
    Path link = home.resolve(planted);
    Files.createDirectories(link.getParent());
    Files.createSymbolicLink(link, target);

    SupervisorProcess.CliResult start = startExpectingRefusal(home);

    assertEquals("root's own\n", Files.readString(target), "the file it points to is untouched");
    assertEquals("rw-------", mode(target));
    assertEquals(1, start.code(), start.output());
    assertTrue(start.output().contains("refusing " + link + ": it is a symbolic link (to " + target + ")"),
        start.output());
    assertTrue(Files.isSymbolicLink(link), "left for the operator to look at");
  }

  @Test
  void aControlSocketAnotherUserPlantedIsBelievedNeitherByStopNorByStatus() throws Exception {
    OtherUser.assumeAvailable();
    SupervisorProcess.requireChildJars();
    Path home = openHome();
    try (SupervisorProcess sup = SupervisorProcess.start(home, NO_WORKERS, SupervisorProcess.testRedisEnv())) {
      await().atMost(Duration.ofSeconds(60)).until(() -> sup.status().isPresent());
      Path run = home.resolve("run");
      // the state of the finding: a run/ the other user could write, where they replaced the socket
      Files.setPosixFilePermissions(run, PosixFilePermissions.fromString("rwxrwxrwx"));
      Files.delete(sup.socket());
      Path fakeOut = tmp.resolve("fake.out");
      Process fake = OtherUser.start(fakeOut, Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-XX:-UsePerfData", "-Xmx32m", FakeSupervisor.source(Files.createDirectories(tmp.resolve("fake"))).toString(),
          sup.socket().toString());
      try {
        await().atMost(Duration.ofSeconds(60)).until(() -> Files.readString(fakeOut).contains("listening"));
        Files.setPosixFilePermissions(run, PosixFilePermissions.fromString("rwx------"));

        SupervisorProcess.CliResult stop = sup.run("stop", "--config", sup.config.toString());
        SupervisorProcess.CliResult status = sup.run("status", "--config", sup.config.toString());

        String why = "refusing to talk to " + sup.socket() + ": it belongs to nobody, not to root";
        assertEquals(1, stop.code(), stop.output());
        assertTrue(stop.output().contains("stop not sent: " + why), stop.output());
        assertFalse(stop.output().contains("stopped"), stop.output());
        assertEquals(1, status.code(), status.output());
        assertTrue(status.output().contains(why), status.output());
        assertTrue(sup.process.isAlive(), "the real supervisor runs on");
        assertFalse(Files.readString(fakeOut).contains("request"), "nothing was sent to it: " + Files.readString(fakeOut));
      } finally {
        fake.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        sup.process.destroy(); // SIGTERM means stop; its socket is gone
        assertTrue(sup.process.waitFor(60, TimeUnit.SECONDS), "the supervisor stops on SIGTERM");
      }
    }
  }

  @Test
  void aFreshStartUnderUmask022LeavesTheHomeAndItsFilesToTheOwnerAlone() throws Exception {
    OtherUser.assumeAvailable();
    SupervisorProcess.requireChildJars();
    Path home = openHome();
    int redisPort = RedisFixture.freePort();
    Map<String, String> env = new HashMap<>(Map.of(
        "DELAYQ_QUEUE", RedisFixture.freshQueue(),
        "DELAYQ_WEB_PORT", Integer.toString(SupervisorProcess.freePort()),
        "DELAYQ_REDIS_EMBEDDED_PORT", Integer.toString(redisPort)));
    try (SupervisorProcess sup = SupervisorProcess.startUnderUmask("022", home, SupervisorProcess.ONE_QUICK_WORKER,
        env)) {
      await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() ->
          Stream.of("redis", "scheduler", "worker-1").allMatch(n -> sup.state(n).equals("RUNNING")));
      String password = Files.readString(home.resolve("run/redis.password")).trim();
      String secret = "payload-only-the-token-shows-" + RedisFixture.freshQueue();
      try (UnifiedJedis redis = RedisConnector.open("redis://:" + password + "@127.0.0.1:" + redisPort, "umask-test",
          2, Duration.ofSeconds(2), Duration.ofSeconds(5))) {
        new DelayQueue(new RedisBroker(redis, new Keys("delayq", env.get("DELAYQ_QUEUE"))), 1 << 20, 5)
            .delay("later", Map.of("secret", secret), Duration.ofDays(1));
      }
      Path aof = await().atMost(Duration.ofSeconds(20)).until(() -> fileHolding(home.resolve("data"), secret),
          p -> p != null);
      SupervisorProcess.CliResult cat = OtherUser.run(tmp.resolve("cat.out"), "cat", aof.toString());

      assertNotEquals(0, cat.code(), "another user read the AOF: " + cat.output());
      assertFalse(cat.output().contains(secret), cat.output());
      for (String dir : List.of("run", "logs", "data")) {
        assertEquals("rwx------", mode(home.resolve(dir)), dir);
      }
      for (String file : List.of("run/supervisor.pid", "run/redis.password", "run/redis.conf", "run/web.token",
          "logs/redis.log", "logs/scheduler.log", "logs/worker-1.log")) {
        assertEquals("rw-------", mode(home.resolve(file)), file);
      }
      assertEquals("rw-------", mode(aof), aof + ", the embedded Redis's append-only file");
      for (Path f : filesUnder(home.resolve("run"), home.resolve("logs"), home.resolve("data"))) {
        assertTrue(mode(f).endsWith("------"), f + " is " + mode(f));
      }
    }
  }

  @Test
  void filesAndDirectoriesThatAnOlderStartLeftReadableToOthersAreNarrowedAtStart() throws Exception {
    SupervisorProcess.requireChildJars();
    Path home = openHome();
    Map<String, String> old = Map.of("run/supervisor.pid", "999999\n", "logs/scheduler.log", "an old line\n",
        "logs/worker-1.log.1", "an old line\n", "data/appendonlydir/appendonly.aof.1.incr.aof", "");
    for (Map.Entry<String, String> f : old.entrySet()) {
      Path file = home.resolve(f.getKey());
      Files.createDirectories(file.getParent());
      Files.writeString(file, f.getValue());
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
    }
    for (String dir : List.of("run", "logs", "data", "data/appendonlydir")) {
      Files.setPosixFilePermissions(home.resolve(dir), PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    try (SupervisorProcess sup = SupervisorProcess.start(home, NO_WORKERS, SupervisorProcess.testRedisEnv())) {
      await().atMost(Duration.ofSeconds(60)).until(() -> sup.status().isPresent());

      for (String dir : List.of("run", "logs", "data", "data/appendonlydir")) {
        assertEquals("rwx------", mode(home.resolve(dir)), dir);
      }
      for (String file : List.of("run/supervisor.pid", "logs/scheduler.log", "logs/worker-1.log.1",
          "data/appendonlydir/appendonly.aof.1.incr.aof")) {
        assertEquals("rw-------", mode(home.resolve(file)), file);
      }
      assertTrue(sup.output().contains("narrowed to owner only what others could read"), sup.output());
      assertTrue(sup.output().contains("scheduler.log 0644 -> 0600"), sup.output());
    }
  }

  private static Path fileHolding(Path dir, String text) throws Exception {
    for (Path f : filesUnder(dir)) {
      if (new String(Files.readAllBytes(f), java.nio.charset.StandardCharsets.ISO_8859_1).contains(text)) {
        return f;
      }
    }
    return null;
  }

  private static List<Path> filesUnder(Path... dirs) throws Exception {
    List<Path> files = new ArrayList<>();
    for (Path dir : dirs) {
      try (Stream<Path> walk = Files.walk(dir)) {
        walk.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)).forEach(files::add);
      }
    }
    return files;
  }
}

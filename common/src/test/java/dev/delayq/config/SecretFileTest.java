package dev.delayq.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The secrets of run/: the embedded Redis's password and how tools on the same home find it. */
class SecretFileTest {
  @TempDir
  Path home;

  private static String mode(Path p) throws Exception {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
  }

  @Test
  void thePasswordIsGeneratedAtFirstStartKeptInA0600FileAndKeptAfterwards() throws Exception {
    Path run = home.resolve("run");
    String first = EmbeddedRedisPassword.loadOrCreate(run);

    assertTrue(first.matches("[A-Za-z0-9_-]{43}"), "256 random bits, URL-safe: " + first);
    assertEquals("rw-------", mode(EmbeddedRedisPassword.file(run)));
    assertEquals("rwx------", mode(run));
    assertEquals(first, EmbeddedRedisPassword.loadOrCreate(run), "kept across starts");
    assertNotEquals(first, EmbeddedRedisPassword.loadOrCreate(home.resolve("other-run")));
  }

  @Test
  void aPasswordFileOthersCouldReadIsReplacedByANewPassword() throws Exception {
    Path run = home.resolve("run");
    String first = EmbeddedRedisPassword.loadOrCreate(run);
    Files.setPosixFilePermissions(EmbeddedRedisPassword.file(run), PosixFilePermissions.fromString("rw-r--r--"));

    String second = EmbeddedRedisPassword.loadOrCreate(run);

    assertNotEquals(first, second, "a password others could read is no secret any more");
    assertEquals("rw-------", mode(EmbeddedRedisPassword.file(run)));
    assertEquals(Optional.of(second), SecretFile.readPrivate(EmbeddedRedisPassword.file(run)));
  }

  @Test
  void toolsOnTheSameHomeReachTheEmbeddedRedisWithItsPassword() {
    DelayqConfig embedded = new ConfigLoader().load(null, Map.of());
    String password = EmbeddedRedisPassword.loadOrCreate(home.resolve("run"));

    assertEquals("redis://:" + password + "@127.0.0.1:6390", EmbeddedRedisPassword.connectUrl(embedded, home));
    DelayqConfig external = new ConfigLoader().load(null, Map.of("DELAYQ_REDIS_URL", "redis://elsewhere:6379"));
    assertEquals("redis://elsewhere:6379", EmbeddedRedisPassword.connectUrl(external, home));
  }

  @Test
  void aPasswordFileThatCannotBeReadGivesAnErrorThatSaysWhatToDo() throws Exception {
    DelayqConfig embedded = new ConfigLoader().load(null, Map.of());
    assertEquals("redis://127.0.0.1:6390", EmbeddedRedisPassword.connectUrl(embedded, home),
        "no supervisor started here yet: connecting says so");
    Files.createDirectories(EmbeddedRedisPassword.file(home.resolve("run")));   // not a readable file

    ConfigException e = assertThrows(ConfigException.class, () -> EmbeddedRedisPassword.connectUrl(embedded, home));
    assertTrue(e.getMessage().contains("redis.password") && e.getMessage().contains("user who runs")
        && e.getMessage().contains("DELAYQ_REDIS_URL"), e.getMessage());
  }
}

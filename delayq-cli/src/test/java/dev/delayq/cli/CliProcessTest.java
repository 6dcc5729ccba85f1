package dev.delayq.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.testing.RedisFixture;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real {@code bin/delayq} launcher as a process ({@link DelayqLauncher}: a copy of the
 * script in a scratch install), on the test Redis.
 */
class CliProcessTest {
  @TempDir
  static Path install;
  static DelayqLauncher launcher;

  private final Cli cli = new Cli();

  @BeforeAll
  static void scratchInstall() throws IOException {
    launcher = DelayqLauncher.in(install);
  }

  private Cli.Result launch(Map<String, String> env, String... args) throws Exception {
    DelayqLauncher.Run r = launcher.run(env, args);
    return new Cli.Result(r.exit(), r.out(), r.err());
  }

  @Test
  void enqueueThenInspectThroughTheLauncher() throws Exception {
    Cli.Result enqueued = launch(cli.env, "enqueue", "--type", "order_close",
        "--payload", "{\"order_id\":1001}", "--delay", "30m", "--id", "order-1001");
    Cli.Result inspected = launch(cli.env, "inspect", "order-1001");

    assertEquals(0, enqueued.exit(), enqueued.toString());
    assertEquals("order-1001\n", enqueued.out());
    assertEquals(0, inspected.exit(), inspected.toString());
    assertTrue(inspected.out().contains("state       DELAYED"), inspected.out());
    assertEquals(List.of("delayed"), cli.probe.placesOf("order-1001"));
  }

  @Test
  void failuresAreOneLineWithTheirExitCodes() throws Exception {
    Map<String, String> down = Map.of("DELAYQ_REDIS_URL", "redis://127.0.0.1:" + RedisFixture.freePort());

    Cli.Result unreachable = launch(down, "stats");
    Cli.Result badDuration = launch(cli.env, "dead", "purge", "--older-than", "soon");

    assertEquals(3, unreachable.exit(), unreachable.toString());
    assertTrue(unreachable.err().matches("delayq: cannot reach Redis at redis://127\\.0\\.0\\.1:\\d+: "
        + "Connection refused\n"), unreachable.err());
    assertEquals(2, badDuration.exit(), badDuration.toString());
    assertEquals(1, badDuration.err().lines().count(), badDuration.err());
  }
}

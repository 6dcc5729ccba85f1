package dev.delayq.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.testing.RedisFixture;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real {@code bin/delayq} launcher as a process: a copy of the script in a scratch install
 * whose supervisor.jar carries this test's classpath in its manifest, so the script runs as
 * shipped (install lookup, JVM options, logback config, exit codes) without a package build.
 */
class CliProcessTest {
  @TempDir
  static Path install;

  private final Cli cli = new Cli();

  @BeforeAll
  static void scratchInstall() throws IOException {
    Path script = install.resolve("bin/delayq");
    Files.createDirectories(script.getParent());
    Files.copy(projectRoot().resolve("bin/delayq"), script);
    script.toFile().setExecutable(true);
    Path target = install.resolve("supervisor/target");
    Files.createDirectories(target.resolve("lib"));
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    List<String> urls = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      urls.add(Path.of(entry).toUri().toString());  // directories end in '/', as Class-Path wants
    }
    manifest.getMainAttributes().put(Attributes.Name.CLASS_PATH, String.join(" ", urls));
    try (OutputStream out = new JarOutputStream(Files.newOutputStream(target.resolve("supervisor.jar")), manifest)) {
      out.flush();
    }
    // the launcher builds the project when the bench jar is missing too; it is not used here
    Files.createDirectories(install.resolve("bench/target/lib"));
    Files.createFile(install.resolve("bench/target/bench.jar"));
  }

  private static Path projectRoot() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isRegularFile(p.resolve("bin/delayq"))) {
        return p;
      }
    }
    throw new AssertionError("bin/delayq not found above " + Path.of("").toAbsolutePath());
  }

  private Cli.Result launch(Map<String, String> env, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(install.resolve("bin/delayq").toString()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.environment().keySet().removeIf(k -> k.startsWith("DELAYQ_"));
    pb.environment().putAll(env);
    pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
    Path out = install.resolve("out.txt");
    Path err = install.resolve("err.txt");
    Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    assertTrue(p.waitFor(30, TimeUnit.SECONDS), "bin/delayq did not finish");
    return new Cli.Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
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

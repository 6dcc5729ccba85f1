package dev.delayq.cli;

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

/**
 * The real {@code bin/delayq} launcher in a scratch install whose delayq-cli.jar carries this
 * test's classpath in its manifest, so the script runs as shipped (install lookup, JVM options,
 * logback config, exit codes) without a package build.
 */
public final class DelayqLauncher {
  /** What one run printed and its exit code. */
  public record Run(int exit, String out, String err) {
    @Override
    public String toString() {
      return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
  }

  private final Path install;

  private DelayqLauncher(Path install) {
    this.install = install;
  }

  /** Lays out the scratch install in {@code install} (an empty directory). */
  public static DelayqLauncher in(Path install) throws IOException {
    Path script = install.resolve("bin/delayq");
    Files.createDirectories(script.getParent());
    Files.copy(projectRoot().resolve("bin/delayq"), script);
    script.toFile().setExecutable(true);
    Path target = install.resolve("delayq-cli/target");
    Files.createDirectories(target.resolve("lib"));
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    List<String> urls = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      urls.add(Path.of(entry).toUri().toString());  // directories end in '/', as Class-Path wants
    }
    manifest.getMainAttributes().put(Attributes.Name.CLASS_PATH, String.join(" ", urls));
    try (OutputStream out = new JarOutputStream(Files.newOutputStream(target.resolve("delayq-cli.jar")), manifest)) {
      out.flush();
    }
    // the launcher builds the project when the bench jar is missing too; it is not used here
    Files.createDirectories(install.resolve("bench/target/lib"));
    Files.createFile(install.resolve("bench/target/bench.jar"));
    return new DelayqLauncher(install);
  }

  private static Path projectRoot() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isRegularFile(p.resolve("bin/delayq"))) {
        return p;
      }
    }
    throw new AssertionError("bin/delayq not found above " + Path.of("").toAbsolutePath());
  }

  /** Runs {@code bin/delayq args} with {@code env} as its only DELAYQ_* variables. */
  public Run run(Map<String, String> env, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(install.resolve("bin/delayq").toString()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.environment().keySet().removeIf(k -> k.startsWith("DELAYQ_"));
    pb.environment().putAll(env);
    pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
    Path out = Files.createTempFile(install, "out", ".txt");
    Path err = Files.createTempFile(install, "err", ".txt");
    Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("bin/delayq " + String.join(" ", args) + " did not finish within 60s");
    }
    return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }
}

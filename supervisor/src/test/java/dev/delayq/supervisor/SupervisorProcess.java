package dev.delayq.supervisor;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.supervisor.cli.SupervisorCli;
import dev.delayq.supervisor.control.ControlClient;
import dev.delayq.supervisor.host.Home;
import dev.delayq.testing.RedisFixture;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A real supervisor launched as a process for a test: its own temporary home (run/, logs/,
 * data/), its own config file, the jars of this checkout, and by default the test Redis with a
 * fresh queue. {@link #close()} takes down whatever is left, children included.
 */
final class SupervisorProcess implements AutoCloseable {
  static final Path INSTALL = Home.installDir();

  /** The jvm section most process tests use: small heaps, quick starts. */
  static final String LEAN_JVMS = """
      jvm:
        worker: "-Xms32m -Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1"
        scheduler: "-Xms16m -Xmx96m -XX:+UseSerialGC -XX:TieredStopAtLevel=1"
      """;

  /** One worker of two threads that drains quickly: enough for a test about the supervisor itself. */
  static final String ONE_QUICK_WORKER = quickWorkers(1, 2);

  /**
   * {@code processes} workers of {@code threads} threads each that poll every 500 ms and drain
   * within 5 s, a supervisor that stops within 10 s, and {@link #LEAN_JVMS}: the set-up of most
   * process tests, which add their own sections (queue limits, web) beside it.
   */
  static String quickWorkers(int processes, int threads) {
    return """
        worker:
          processes: %d
          threads: %d
          pollTimeout: 500ms
          drainTimeout: 5s
        supervisor:
          stopTimeout: 10s
        """.formatted(processes, threads) + LEAN_JVMS;
  }

  final Path home;
  final Path config;
  final Map<String, String> env;
  final Process process;
  private final List<Long> seenChildPids = new ArrayList<>();

  private SupervisorProcess(Path home, Path config, Map<String, String> env, Process process) {
    this.home = home;
    this.config = config;
    this.env = env;
    this.process = process;
  }

  /** Fails with the fix when the scheduler and worker jars these tests launch were not built. */
  static void requireChildJars() {
    for (String module : List.of("scheduler-proc", "worker-proc")) {
      Path jar = INSTALL.resolve(module).resolve("target").resolve(module + ".jar");
      if (!Files.isRegularFile(jar) || !Files.isDirectory(jar.resolveSibling("lib"))) {
        throw new AssertionError(jar + " (and lib/ next to it) is missing: run `mvn -DskipTests package` "
            + "at the project root, or run these tests in the reactor build (`mvn verify`)");
      }
    }
  }

  /**
   * The environment of a supervisor on the test Redis with a queue of its own, and its web port
   * on a free port (not the default 6391, which a supervisor of the developer may hold).
   */
  static Map<String, String> testRedisEnv() {
    Map<String, String> env = new HashMap<>();
    env.put("DELAYQ_REDIS_URL", RedisFixture.get().url());
    env.put("DELAYQ_QUEUE", RedisFixture.freshQueue());
    env.put("DELAYQ_WEB_PORT", Integer.toString(freePort()));
    return env;
  }

  static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The dashboard's token in force, from run/web.token. */
  String webToken() {
    try {
      return Files.readString(home.resolve("run/web.token")).trim();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The base URL of its dashboard and API, from DELAYQ_WEB_PORT. */
  String webUrl() {
    return "http://127.0.0.1:" + env.get("DELAYQ_WEB_PORT");
  }

  static SupervisorProcess start(Path home, String yaml, Map<String, String> env, String... extraArgs)
      throws IOException {
    return start(home, yaml, env, List.of(), extraArgs);
  }

  /** A supervisor started under {@code umask} (e.g. "022"), whatever this JVM's is. */
  static SupervisorProcess startUnderUmask(String umask, Path home, String yaml, Map<String, String> env)
      throws IOException {
    // the shell execs the JVM in its place: the process is the supervisor's own
    return start(home, yaml, env, List.of(), List.of("/bin/sh", "-c", "umask " + umask + " && exec \"$0\" \"$@\""));
  }

  /**
   * A supervisor whose own JVM also gets {@code jvmOptions}, after the harness's own (its children
   * do not).
   */
  static SupervisorProcess start(Path home, String yaml, Map<String, String> env, List<String> jvmOptions,
      String... extraArgs) throws IOException {
    return start(home, yaml, env, jvmOptions, List.of(), extraArgs);
  }

  private static SupervisorProcess start(Path home, String yaml, Map<String, String> env, List<String> jvmOptions,
      List<String> wrapper, String... extraArgs) throws IOException {
    Files.createDirectories(home);
    Path config = home.resolve("delayq.yml");
    Files.writeString(config, yaml);
    List<String> args = new ArrayList<>(List.of("start", "--config", config.toString()));
    args.addAll(List.of(extraArgs));
    ProcessBuilder builder = cli(home, env, args);
    // after this harness's own heap options, so that a test's override them
    builder.command().addAll(builder.command().indexOf("-Ddelayq.install=" + INSTALL), jvmOptions);
    builder.command().addAll(0, wrapper);
    Process p = builder.redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(home.resolve("supervisor.out").toFile()))
        .start();
    return new SupervisorProcess(home, config, env, p);
  }

  /**
   * {@code bin/delayq ARGS} as its own JVM, same classpath as this test, on the DELAYQ_* variables
   * of {@code env} only; its output (stdout and stderr) goes through a file in {@code home}.
   */
  static CliResult delayq(Path home, Map<String, String> env, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx96m",
        "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        "-cp", System.getProperty("java.class.path"), dev.delayq.cli.DelayqCli.class.getName()));
    command.addAll(List.of(args));
    Path out = Files.createTempFile(home, "cli", ".out");
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile());
    pb.environment().keySet().removeIf(k -> k.startsWith("DELAYQ_"));
    pb.environment().putAll(env);
    Process p = pb.start();
    if (!p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("delayq " + String.join(" ", args) + " did not end within 60 s");
    }
    return new CliResult(p.exitValue(), Files.readString(out));
  }

  /** The CLI with {@code args}, same classpath as this test, state in {@code home}. */
  static ProcessBuilder cli(Path home, Map<String, String> env, List<String> args) {
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx96m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        "-Ddelayq.install=" + INSTALL,
        "-Dlogback.configurationFile=" + INSTALL.resolve("conf/logback.xml"),
        "-cp", System.getProperty("java.class.path"),
        SupervisorCli.class.getName()));
    command.addAll(args);
    if (!args.contains("--home")) {
      command.add("--home");
      command.add(home.toString());
    }
    ProcessBuilder builder = new ProcessBuilder(command).directory(home.toFile());
    builder.environment().keySet().removeIf(k -> k.startsWith("DELAYQ_"));
    builder.environment().putAll(env);
    return builder;
  }

  /** Runs the CLI to its end; returns its exit code and output. */
  CliResult run(String... args) throws IOException, InterruptedException {
    List<String> all = new ArrayList<>(List.of(args));
    Path out = Files.createTempFile(home, "cli", ".out");
    Process p = cli(home, env, all).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("CLI " + all + " did not end within 120s");
    }
    return new CliResult(p.exitValue(), Files.readString(out));
  }

  record CliResult(int code, String output) {}

  Path socket() {
    return home.resolve("run/supervisor.sock");
  }

  Path pidFile() {
    return home.resolve("run/supervisor.pid");
  }

  /** The status answer over the control socket, or empty while nothing answers yet. */
  Optional<JsonNode> status() {
    try {
      JsonNode answer = new ControlClient(socket()).request(Map.of("cmd", "status"), l -> { }, Duration.ofSeconds(10));
      answer.path("status").path("children").forEach(c -> {
        if (!c.path("pid").isNull() && !seenChildPids.contains(c.path("pid").asLong())) {
          seenChildPids.add(c.path("pid").asLong());
        }
      });
      return Optional.of(answer.path("status"));
    } catch (ControlClient.NotRunningException | IOException e) {
      return Optional.empty();
    }
  }

  /** {@code reload --workers n} over the control socket; the answer line (ok, message or error). */
  JsonNode reload(int n) throws Exception {
    return new ControlClient(socket()).request(Map.of("cmd", "reload", "workers", n), l -> { }, Duration.ofSeconds(40));
  }

  /**
   * PIDs of the worker JVMs on this machine that this supervisor started (their command line
   * names its config file), whether or not its table still lists them.
   */
  List<Long> workerJvms() {
    return ProcessHandle.allProcesses()
        .filter(h -> h.info().commandLine().map(c -> c.contains(ChildSpecs.WORKER_MAIN)
            && c.contains(config.toString())).orElse(false))
        .map(ProcessHandle::pid).sorted().toList();
  }

  /** The child named {@code name} in the current status, if it is there. */
  Optional<JsonNode> child(String name) {
    return status().flatMap(s -> {
      for (JsonNode c : s.path("children")) {
        if (c.path("name").asText().equals(name)) {
          return Optional.of(c);
        }
      }
      return Optional.empty();
    });
  }

  List<JsonNode> children(String role) {
    List<JsonNode> out = new ArrayList<>();
    status().ifPresent(s -> s.path("children").forEach(c -> {
      if (c.path("role").asText().equals(role)) {
        out.add(c);
      }
    }));
    return out;
  }

  String state(String name) {
    return child(name).map(c -> c.path("state").asText()).orElse("(none)");
  }

  String output() {
    try {
      return Files.readString(home.resolve("supervisor.out"));
    } catch (IOException e) {
      return "(no output: " + e + ")";
    }
  }

  String log(String child) {
    try {
      return Files.readString(home.resolve("logs").resolve(child + ".log"));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  /** Waits until {@code children} children are RUNNING. */
  void awaitRunning(int children) {
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(200))
        .until(() -> status().map(s -> {
          int running = 0;
          for (JsonNode c : s.path("children")) {
            running += c.path("state").asText().equals("RUNNING") ? 1 : 0;
          }
          return running == children;
        }).orElse(false));
  }

  /** PIDs of every child any status call has shown. */
  List<Long> seenChildPids() {
    return List.copyOf(seenChildPids);
  }

  @Override
  public void close() throws Exception {
    status();
    if (process.isAlive()) {
      try {
        new ControlClient(socket()).request(Map.of("cmd", "stop", "timeoutMs", 5000), l -> { }, Duration.ofSeconds(40));
      } catch (ControlClient.NotRunningException | IOException e) {
        // killed below
      }
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
    for (long pid : seenChildPids) {
      // only what is still one of ours: a PID may have been reused since
      ProcessHandle.of(pid)
          .filter(h -> h.info().commandLine().map(c -> c.contains("dev.delayq") || c.contains("redis-server"))
              .orElse(false))
          .ifPresent(ProcessHandle::destroyForcibly);
    }
  }
}

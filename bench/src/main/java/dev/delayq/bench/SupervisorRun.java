package dev.delayq.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A real supervisor for a measure: launched as a process from the built jars with a private
 * home (run/, logs/, jobs/) on the bench Redis, and steered over its control socket with the
 * same one-JSON-line protocol {@code delayq-supervisor status|reload} use.
 */
final class SupervisorRun implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path home;
  private final Process process;
  /** Stops the system if the bench is stopped by a signal (timeout, Ctrl-C); removed at close. */
  private final Thread stopOnExit = new Thread(this::stopQuietly, "bench-supervisor-stop");

  private SupervisorRun(Path home, Process process) {
    this.home = home;
    this.process = process;
    Runtime.getRuntime().addShutdownHook(stopOnExit);
  }

  static SupervisorRun start(Path install, Path home, Map<String, String> env, int workers)
      throws IOException, InterruptedException {
    Path jar = install.resolve("supervisor/target/supervisor.jar");
    if (!Files.exists(jar)) {
      throw new IllegalStateException(jar + " is missing: build with mvn -DskipTests package");
    }
    Files.createDirectories(home.resolve("logs"));
    ProcessBuilder pb = new ProcessBuilder(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx128m",
        "-Ddelayq.install=" + install, "-Dlogback.configurationFile=" + install.resolve("conf/logback.xml"),
        "-cp", jar + java.io.File.pathSeparator + install.resolve("supervisor/target/lib") + "/*",
        "dev.delayq.supervisor.cli.SupervisorCli", "start", "--home", home.toString(),
        "--workers", Integer.toString(workers))
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(home.resolve("logs/supervisor.log").toFile()));
    pb.environment().putAll(env);
    SupervisorRun run = new SupervisorRun(home, pb.start());
    try {
      run.awaitChildren(children -> running(children, "worker") == workers && running(children, "scheduler") == 1, 90);
    } catch (InterruptedException | RuntimeException e) {
      run.close();
      throw e;
    }
    return run;
  }

  /** The children's status objects (name, role, pid, state, …). */
  List<JsonNode> children() throws IOException {
    JsonNode answer = request("{\"cmd\":\"status\"}");
    List<JsonNode> out = new ArrayList<>();
    answer.path("status").path("children").forEach(out::add);
    return out;
  }

  void reload(int workers) throws IOException {
    request("{\"cmd\":\"reload\",\"workers\":" + workers + "}");
  }

  /** Stops the supervisor (drain, then SIGKILL at the timeout) and waits for it to exit. */
  void stop(java.time.Duration timeout) throws IOException, InterruptedException {
    try {
      request("{\"cmd\":\"stop\",\"timeoutMs\":" + timeout.toMillis() + "}");
    } catch (IOException closedAsItExited) {
      // the supervisor may close the socket as it exits, before its last line
    }
    process.waitFor(timeout.toSeconds() + 30, TimeUnit.SECONDS);
  }

  /** Polls status every few ms until {@code done} holds; returns when it did, epoch ms. */
  long awaitChildren(Predicate<List<JsonNode>> done, int timeoutSeconds) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("the supervisor exited; see " + home.resolve("logs"));
      }
      try {
        if (done.test(children())) {
          return System.currentTimeMillis();
        }
      } catch (IOException notYet) {
        // socket not there yet, or a restart in progress
      }
      Thread.sleep(5);
    }
    throw new IllegalStateException("the supervisor's children did not settle in " + timeoutSeconds
        + " s; see " + home.resolve("logs"));
  }

  static long running(List<JsonNode> children, String role) {
    return children.stream().filter(c -> c.path("role").asText().equals(role)
        && c.path("state").asText().equals("RUNNING")).count();
  }

  private JsonNode request(String line) throws IOException {
    try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
      channel.connect(UnixDomainSocketAddress.of(home.resolve("run/supervisor.sock")));
      Channels.newOutputStream(channel).write((line + "\n").getBytes(StandardCharsets.UTF_8));
      BufferedReader in = new BufferedReader(new InputStreamReader(Channels.newInputStream(channel),
          StandardCharsets.UTF_8));
      String reply;
      while ((reply = in.readLine()) != null) {
        JsonNode node = JSON.readTree(reply);
        if (!node.has("progress")) {
          if (!node.path("ok").asBoolean()) {
            throw new IOException("supervisor refused " + line + ": " + node.path("error").asText());
          }
          return node;
        }
      }
      throw new IOException("no answer from the supervisor");
    }
  }

  /** CPU seconds (user + system) the supervisor's live children (workers, scheduler) have used so far. */
  double childrenCpuSeconds() {
    return process.toHandle().children()
        .mapToDouble(c -> c.info().totalCpuDuration().map(d -> d.toNanos() / 1e9).orElse(0.0)).sum();
  }

  /** Resident memory of a process in MB, from /proc. */
  static double rssMb(long pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("\\D", "")) / 1024.0;
        }
      }
    } catch (IOException | NumberFormatException e) {
      return -1;
    }
    return -1;
  }

  @Override
  public void close() throws InterruptedException {
    stop();
    try {
      Runtime.getRuntime().removeShutdownHook(stopOnExit);
    } catch (IllegalStateException e) {
      // closed by that very hook, the JVM already shutting down
    }
  }

  private void stop() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
  }

  private void stopQuietly() {
    if (process.isAlive()) {
      try {
        stop();
      } catch (InterruptedException e) {
        process.destroyForcibly();
      }
    }
  }
}

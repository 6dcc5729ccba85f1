package dev.delayq.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Starts real scheduler and worker JVMs on this module's test classpath (which holds both
 * mains and the test handlers), each with its own log file under target/e2e-logs, and kills
 * whatever is left when the test ends.
 */
final class JvmProcesses implements AutoCloseable {
  static final String SCHEDULER = "dev.delayq.schedulerproc.SchedulerMain";
  static final String WORKER = "dev.delayq.workerproc.WorkerMain";

  private final String testName;
  private final Map<String, String> env = new HashMap<>();
  private final List<Process> started = new ArrayList<>();
  /** Per process name, where its log file ended when this test first started it (the file is appended to). */
  private final Map<String, Long> logStarts = new HashMap<>();

  JvmProcesses(String testName, String redisUrl, String queue) {
    this.testName = testName;
    env.put("DELAYQ_REDIS_URL", redisUrl);
    env.put("DELAYQ_QUEUE", queue);
    env.put("DELAYQ_WORKER_POLL_TIMEOUT", "200ms");
  }

  /** Sets an environment variable (a DELAYQ_* config override) for processes started after. */
  JvmProcesses with(String name, String value) {
    env.put(name, value);
    return this;
  }

  Process scheduler(String name) {
    return start(SCHEDULER, name);
  }

  Process worker(String name) {
    return start(WORKER, name);
  }

  Process start(String mainClass, String name) {
    Path root = Path.of("").toAbsolutePath().getParent();
    Path logs = Path.of("target", "e2e-logs");
    try {
      Files.createDirectories(logs);
      Path log = logs.resolve(testName + "-" + name + ".log");
      logStarts.putIfAbsent(name, Files.exists(log) ? Files.size(log) : 0L);
      List<String> command = new ArrayList<>(List.of(
          Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
          "-Dlogback.configurationFile=" + root.resolve("conf/logback.xml"),
          "-cp", System.getProperty("java.class.path"), mainClass));
      ProcessBuilder pb = new ProcessBuilder(command)
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(
              logs.resolve(testName + "-" + name + ".log").toFile()));
      pb.environment().putAll(env);
      pb.environment().put("DELAYQ_CHILD_NAME", name);
      Process p = pb.start();
      started.add(p);
      return p;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static void sigterm(Process p) {
    p.destroy();
  }

  /** What the processes named {@code name} logged since this test first started one. */
  String log(String name) {
    Path log = Path.of("target", "e2e-logs", testName + "-" + name + ".log");
    try {
      byte[] all = Files.readAllBytes(log);
      int from = (int) Math.min(all.length, logStarts.getOrDefault(name, 0L));
      return new String(all, from, all.length - from, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** SIGSTOP: the process stands still, threads, clocks and sockets and all, as in a long pause. */
  static void sigstop(Process p) throws IOException, InterruptedException {
    signal(p, "STOP");
  }

  static void sigcont(Process p) throws IOException, InterruptedException {
    signal(p, "CONT");
  }

  private static void signal(Process p, String signal) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).inheritIO().start();
    if (kill.waitFor() != 0) {
      throw new IllegalStateException("kill -" + signal + " " + p.pid() + " failed");
    }
  }

  static void sigkill(Process p) throws InterruptedException {
    p.destroyForcibly();
    p.waitFor(10, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws InterruptedException {
    for (Process p : started) {
      if (p.isAlive()) {
        p.destroyForcibly(); // SIGKILL ends a stopped process too
      }
    }
    for (Process p : started) {
      p.waitFor(10, TimeUnit.SECONDS);
    }
  }
}

package dev.delayq.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Starts real scheduler and worker JVMs from the built jars (module/target/module.jar plus
 * module/target/lib), as the supervisor does, and stops them all at the end of a measure.
 */
final class Children implements AutoCloseable {
  private final Path home;
  private final Path logDir;
  private final Map<String, String> env;
  private final List<Process> started = new ArrayList<>();

  Children(Path home, Path logDir, Map<String, String> env) {
    this.home = home;
    this.logDir = logDir;
    this.env = env;
  }

  Process scheduler() throws IOException {
    return start("scheduler-proc", "dev.delayq.scheduler.SchedulerMain", "scheduler", List.of());
  }

  Process worker(int n, int threads, Path jobsDir) throws IOException {
    return start("worker-proc", "dev.delayq.worker.WorkerMain", "worker-" + n,
        List.of("DELAYQ_WORKER_THREADS=" + threads, "DELAYQ_WORKER_JOBS_DIR=" + jobsDir));
  }

  private Process start(String module, String main, String name, List<String> extraEnv) throws IOException {
    Path jar = home.resolve(module).resolve("target").resolve(module + ".jar");
    if (!Files.exists(jar)) {
      throw new IllegalStateException(jar + " is missing: build with mvn -DskipTests package");
    }
    String cp = jar + java.io.File.pathSeparator + home.resolve(module).resolve("target/lib") + "/*";
    Files.createDirectories(logDir);
    ProcessBuilder pb = new ProcessBuilder(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx512m", "-Dlogback.configurationFile=" + home.resolve("conf/logback.xml"),
        "-cp", cp, main)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(logDir.resolve(name + ".log").toFile()));
    pb.environment().putAll(env);
    pb.environment().put("DELAYQ_CHILD_NAME", name);
    for (String kv : extraEnv) {
      int eq = kv.indexOf('=');
      pb.environment().put(kv.substring(0, eq), kv.substring(eq + 1));
    }
    Process p = pb.start();
    started.add(p);
    return p;
  }

  @Override
  public void close() throws InterruptedException {
    for (Process p : started) {
      p.destroy();
    }
    for (Process p : started) {
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    }
    started.clear();
  }
}

package dev.delayq.supervisor;

import dev.delayq.supervisor.host.EmbeddedRedis;
import dev.delayq.supervisor.host.LogRotation;
import dev.delayq.supervisor.host.RotatingLog;
import dev.delayq.supervisor.host.Setsid;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts a child's process: its command in its own session (so a Ctrl-C at the supervisor's
 * terminal reaches the supervisor alone, which then stops the children in order), stdin from
 * /dev/null, and the environment of the contract (DELAYQ_CHILD_NAME, DELAYQ_REDIS_URL,
 * DELAYQ_SUPERVISOR_PID). Its stdout and stderr come back through a pipe that one thread per
 * process copies to the child's {@link RotatingLog}, so logs rotate by size without the child
 * knowing. After a SIGKILLed supervisor the orphaned children's last lines are lost with the
 * pipe; they drain and exit anyway. The embedded Redis gets a watchdog beside it
 * ({@link EmbeddedRedis#watchdog}), ended when Redis ends or the launcher closes.
 */
public final class ProcessLauncher implements ChildLauncher, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ProcessLauncher.class);
  private static final Duration REDIS_START_TIMEOUT = Duration.ofSeconds(30);
  private static final long PUMP_JOIN_MS = 2000;

  private final Map<String, String> environment;
  private final Path workingDir;
  private final LogRotation rotation;
  private final Map<Path, RotatingLog> logs = new ConcurrentHashMap<>();
  private final Set<Thread> pumps = ConcurrentHashMap.newKeySet();
  private final Set<Process> watchdogs = ConcurrentHashMap.newKeySet();
  private final int embeddedPort;
  private final String embeddedPassword;

  /** {@code embeddedPassword}: the embedded Redis's, or null when redis.url names another Redis. */
  public ProcessLauncher(Map<String, String> environment, Path workingDir, LogRotation rotation, int embeddedPort,
      String embeddedPassword) {
    this.environment = Map.copyOf(environment);
    this.workingDir = workingDir;
    this.rotation = rotation;
    this.embeddedPort = embeddedPort;
    this.embeddedPassword = embeddedPassword;
  }

  @Override
  public Process launch(ChildSpec spec) throws IOException {
    RotatingLog childLog = logs.computeIfAbsent(spec.logFile(), f -> new RotatingLog(f, rotation));
    childLog.writeLine("--- " + OffsetDateTime.now() + " delayq supervisor starts " + spec.name() + ": "
        + String.join(" ", spec.command()));
    ProcessBuilder builder = new ProcessBuilder(Setsid.command(spec.command()))
        .directory(workingDir.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.PIPE);
    builder.environment().putAll(environment);
    builder.environment().put("DELAYQ_CHILD_NAME", spec.name());
    Process process = builder.start();
    Thread pump = new Thread(() -> pump(process.getInputStream(), childLog), "log-" + spec.name());
    pump.setDaemon(true);
    pumps.add(pump);
    pump.start();
    if (spec.role() == Role.REDIS) {
      watch(process);
    }
    return process;
  }

  @Override
  public void awaitRedis(ChildSpec spec, Process process) throws InterruptedException {
    EmbeddedRedis.awaitPing(embeddedPort, embeddedPassword, process, REDIS_START_TIMEOUT, spec.logFile());
  }

  /** The embedded Redis must not outlive a SIGKILLed supervisor: a watchdog ends it then. */
  private void watch(Process redis) {
    try {
      Process watchdog = EmbeddedRedis.watchdog(ProcessHandle.current().pid(), redis.pid());
      watchdogs.add(watchdog);
      redis.onExit().thenRun(() -> {
        watchdog.destroy();
        watchdogs.remove(watchdog);
      });
    } catch (IOException e) {
      log.warn("no watchdog for the embedded Redis (it would outlive a SIGKILLed supervisor): {}", e.toString());
    }
  }

  /** Copies a process's output to its log until the pipe closes (the process and its output ended). */
  private void pump(InputStream in, RotatingLog childLog) {
    byte[] buffer = new byte[8192];
    boolean failing = false;
    try (in) {
      int n;
      while ((n = in.read(buffer)) > 0) {
        try {
          childLog.write(buffer, 0, n);
          failing = false;
        } catch (IOException e) {
          if (!failing) {
            failing = true; // keep reading, or the child would block on a full pipe
            log.error("cannot write {} ({}): its output is dropped until it can", childLog.file(), e.toString());
          }
        }
      }
    } catch (IOException e) {
      // the pipe broke: the process is gone
    } finally {
      pumps.remove(Thread.currentThread());
    }
  }

  /** Waits briefly for the last output of the children that ended, then closes the log files. */
  @Override
  public void close() {
    watchdogs.forEach(Process::destroy);
    long deadline = System.currentTimeMillis() + PUMP_JOIN_MS;
    for (Thread pump : pumps) {
      try {
        pump.join(Math.max(1, deadline - System.currentTimeMillis()));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    for (RotatingLog l : logs.values()) {
      try {
        l.close();
      } catch (IOException e) {
        log.warn("cannot close {}: {}", l.file(), e.toString());
      }
    }
  }
}

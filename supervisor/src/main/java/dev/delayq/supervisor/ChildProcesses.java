package dev.delayq.supervisor;

import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The processes of the children: launching one through the {@link ChildLauncher}, signalling it,
 * and posting its exit as an event. It tells each {@link Child} what it did, on the
 * {@link Supervisor}'s control thread, the only thread that may call it.
 */
final class ChildProcesses {
  private static final Logger log = LoggerFactory.getLogger(ChildProcesses.class);

  private final ChildLauncher launcher;
  private final Ticker ticker;
  private final Consumer<Event> events;
  private final Map<Child, Process> processes = new HashMap<>();

  ChildProcesses(ChildLauncher launcher, Ticker ticker, Consumer<Event> events) {
    this.launcher = launcher;
    this.ticker = ticker;
    this.events = events;
  }

  /** Starts the child's process; one that cannot start counts as an exit with code -1. */
  void launch(Child child) {
    long now = ticker.nanos();
    Process process;
    try {
      process = launcher.launch(child.spec());
    } catch (IOException | RuntimeException e) {
      log.error("{}: cannot start {}: {}", child.name(), child.spec().command().get(0), e.toString());
      child.launched(0, now);
      child.onExit(-1, now);
      return;
    }
    long pid = process.pid();
    processes.put(child, process);
    child.launched(pid, now);
    process.onExit().thenAccept(p -> events.accept(new Event.ChildExited(child, pid, p.exitValue())));
  }

  /** Launches the embedded Redis and returns once it answers. */
  void launchRedis(Child redis) throws InterruptedException {
    launch(redis);
    Process process = processes.get(redis);
    if (process == null) {
      throw new IllegalStateException("could not start the embedded redis-server; see " + redis.spec().logFile());
    }
    launcher.awaitRedis(redis.spec(), process);
  }

  /** The child's process has exited: it is no longer ours to signal. */
  void exited(Child child) {
    processes.remove(child);
  }

  /** SIGTERM a live child (SIGKILL follows at {@code timeout}); a child with no process is STOPPED. */
  void takeDown(Child child, Duration timeout, String why) {
    if (child.state() == ChildState.STOPPING) {
      return;
    }
    Process process = processes.get(child);
    if (child.state().live() && process != null) {
      process.destroy();
      child.stopping(ticker.nanos(), timeout, why + ": SIGTERM");
    } else {
      child.stopIdle(why);
    }
  }

  /** SIGKILL a child still running at its stop deadline. */
  void kill(Child child) {
    Process process = processes.get(child);
    if (process != null) {
      log.warn("{} (pid {}) still running at its stop deadline: SIGKILL", child.name(), child.pid());
      process.destroyForcibly();
    }
  }

  /** SIGKILL every process: the way out when start-up itself failed. */
  void killAll() {
    processes.values().forEach(Process::destroyForcibly);
  }
}

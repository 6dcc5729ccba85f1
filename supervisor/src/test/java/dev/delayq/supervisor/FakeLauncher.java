package dev.delayq.supervisor;

import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link ChildLauncher} whose processes are objects: a child's process exits when the test
 * says so, and every launch and signal is written down in order (supervisord's tests swap the
 * launcher the same way). Runs on the test's thread, which also runs the control loop.
 */
final class FakeLauncher implements ChildLauncher {
  /** What happened, in order: "launch worker-1", "TERM scheduler", "KILL redis", ... */
  final List<String> journal = new ArrayList<>();
  private final Map<String, FakeProcess> latest = new LinkedHashMap<>();
  private long nextPid = 1000;

  @Override
  public Process launch(ChildSpec spec) {
    FakeProcess process = new FakeProcess(spec.name(), nextPid++);
    latest.put(spec.name(), process);
    journal.add("launch " + spec.name());
    return process;
  }

  @Override
  public void awaitRedis(ChildSpec spec, Process process) {
    journal.add("redis answers");
  }

  /** The latest process of the child named {@code name}. */
  FakeProcess process(String name) {
    FakeProcess p = latest.get(name);
    if (p == null) {
      throw new AssertionError("no process was launched for " + name + "; journal: " + journal);
    }
    return p;
  }

  /** The journal's lines that begin with {@code verb} ("launch", "TERM", "KILL"). */
  List<String> entries(String verb) {
    return journal.stream().filter(l -> l.startsWith(verb + " ")).toList();
  }

  final class FakeProcess extends Process {
    private final String name;
    private final long pid;
    private final CompletableFuture<Process> exit = new CompletableFuture<>();
    private int code;

    FakeProcess(String name, long pid) {
      this.name = name;
      this.pid = pid;
    }

    /** The process ends with {@code exitCode}; the supervisor hears it as a ChildExited event. */
    void exit(int exitCode) {
      if (exit.isDone()) {
        throw new AssertionError(name + " (pid " + pid + ") already exited");
      }
      code = exitCode;
      exit.complete(this);
    }

    @Override
    public long pid() {
      return pid;
    }

    @Override
    public CompletableFuture<Process> onExit() {
      return exit;
    }

    @Override
    public void destroy() {
      journal.add("TERM " + name);
    }

    @Override
    public Process destroyForcibly() {
      journal.add("KILL " + name);
      return this;
    }

    @Override
    public int exitValue() {
      if (!exit.isDone()) {
        throw new IllegalThreadStateException(name + " has not exited");
      }
      return code;
    }

    @Override
    public boolean isAlive() {
      return !exit.isDone();
    }

    @Override
    public int waitFor() {
      return exit.join().exitValue();
    }

    @Override
    public OutputStream getOutputStream() {
      return OutputStream.nullOutputStream();
    }

    @Override
    public InputStream getInputStream() {
      return InputStream.nullInputStream();
    }

    @Override
    public InputStream getErrorStream() {
      return InputStream.nullInputStream();
    }
  }
}

package dev.delayq.supervisor.cli;

import dev.delayq.supervisor.Supervisor;
import dev.delayq.supervisor.web.Steering;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;

/** The dashboard's way into the {@link Supervisor}: each call posts an event, as the control socket does. */
final class WebSteering implements Steering {
  private static final long SELF = ProcessHandle.current().pid();

  private final Supervisor supervisor;

  WebSteering(Supervisor supervisor) {
    this.supervisor = supervisor;
  }

  @Override
  public CompletableFuture<Processes> processes() {
    return supervisor.overview().thenApply(s -> new Processes(SELF, s.workers(), s.children().stream()
        .map(v -> new ChildRow(v.name(), v.role(), v.pid(), v.state(), v.restarts(), v.lastExitCode(), v.uptimeMs()))
        .toList()));
  }

  @Override
  public CompletableFuture<String> resize(int workers) {
    return supervisor.resize(OptionalInt.of(workers));
  }

  @Override
  public CompletableFuture<String> restart(String child) {
    return supervisor.restart(child);
  }
}

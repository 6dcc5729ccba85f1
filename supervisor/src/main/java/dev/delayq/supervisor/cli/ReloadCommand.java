package dev.delayq.supervisor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.config.ConfigException;
import dev.delayq.supervisor.control.ControlClient;
import dev.delayq.supervisor.host.Home;
import dev.delayq.supervisor.host.UntrustedPathException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code reload}: resize the worker pool live, and give FATAL children a fresh start. */
@Command(name = "reload", mixinStandardHelpOptions = true,
    description = {"Resize the worker pool live to N, or without --workers to worker.processes re-read from the config;"
        + " N above worker.maxProcesses is refused.",
        "Scale-up starts the missing workers, each named with the lowest number no worker holds (a draining one "
            + "included); scale-down drains the highest-numbered ones (SIGTERM, SIGKILL after "
            + "supervisor.stopTimeout). FATAL and EXITED children are started again."})
final class ReloadCommand implements Callable<Integer> {
  @Mixin
  Location where;

  @Option(names = "--workers", paramLabel = "N", description = "Worker processes to run from now on.")
  Integer workers;

  @Override
  public Integer call() throws Exception {
    Home home = where.resolve();
    Map<String, Object> request = new LinkedHashMap<>();
    request.put("cmd", "reload");
    if (workers != null) {
      request.put("workers", workers);
    }
    JsonNode answer;
    try {
      answer = new ControlClient(home.socket(where.load(home))).request(request, line -> { }, Duration.ofSeconds(40));
    } catch (ControlClient.NotRunningException e) {
      System.err.println(e.getMessage());
      return 1;
    } catch (ConfigException | UntrustedPathException e) {
      System.err.println("delayq: " + e.getMessage());
      return 1;
    }
    if (!answer.path("ok").asBoolean()) {
      System.err.println("delayq: reload refused: " + answer.path("error").asText());
      return 1;
    }
    System.out.println(answer.path("message").asText());
    return 0;
  }
}

package dev.delayq.supervisor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.config.ConfigException;
import dev.delayq.supervisor.control.ControlClient;
import dev.delayq.supervisor.control.Protocol;
import dev.delayq.supervisor.host.Home;
import dev.delayq.supervisor.host.UntrustedPathException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code status}: every child's state, and each queue's depths. */
@Command(name = "status", mixinStandardHelpOptions = true,
    description = "Show each child (name, role, PID, state, uptime, restarts, last exit code) and the depths of each queue.")
final class StatusCommand implements Callable<Integer> {
  @Mixin
  Location where;

  @Option(names = "--json", description = "Print {\"children\":[...],\"queue\":{...}} on one line, for scripts.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    Home home = where.resolve();
    JsonNode answer;
    try {
      answer = new ControlClient(home.socket(where.load(home))).request(Map.of("cmd", "status"), line -> { },
          Duration.ofSeconds(40));
    } catch (ControlClient.NotRunningException e) {
      System.err.println(e.getMessage());
      return SupervisorCli.NOT_RUNNING;
    } catch (ConfigException | UntrustedPathException e) {
      System.err.println("delayq: " + e.getMessage());
      return 1;
    }
    if (!answer.path("ok").asBoolean()) {
      System.err.println("delayq: " + answer.path("error").asText());
      return 1;
    }
    System.out.print(json ? Protocol.JSON.writeValueAsString(answer.get("status")) + "\n" : StatusText.format(answer));
    return 0;
  }
}

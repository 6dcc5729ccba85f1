package dev.delayq.supervisor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.config.ConfigException;
import dev.delayq.config.DelayqConfig;
import dev.delayq.config.Durations;
import dev.delayq.supervisor.ChildSpecs;
import dev.delayq.supervisor.control.ControlClient;
import dev.delayq.supervisor.host.Home;
import dev.delayq.supervisor.host.ProcessExit;
import dev.delayq.supervisor.host.UntrustedPathException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code stop}: drain the workers, then stop the scheduler and Redis; returns once the supervisor is gone. */
@Command(name = "stop", mixinStandardHelpOptions = true,
    description = "Drain every worker (SIGTERM; SIGKILL at the timeout), then stop the scheduler, then the embedded "
        + "Redis; prints the drain progress and returns once the supervisor has exited.")
final class StopCommand implements Callable<Integer> {
  @Mixin
  Location where;

  @Option(names = "--timeout", paramLabel = "DURATION",
      description = "SIGKILL workers still running this long after SIGTERM, e.g. 30s (default: supervisor.stopTimeout).")
  String timeout;

  @Override
  public Integer call() throws Exception {
    Home home = where.resolve();
    Map<String, Object> request = new LinkedHashMap<>();
    request.put("cmd", "stop");
    Duration wait;
    DelayqConfig config;
    try {
      config = where.load(home);
      Duration t = timeout == null ? config.supervisor().stopTimeout() : Durations.parse(timeout);
      request.put("timeoutMs", t.toMillis());
      // workers, then the scheduler and Redis, each with its own deadline
      wait = t.plus(ChildSpecs.SCHEDULER_STOP_TIMEOUT).plus(ChildSpecs.REDIS_STOP_TIMEOUT).plusSeconds(30);
    } catch (ConfigException | IllegalArgumentException e) {
      System.err.println("delayq: " + e.getMessage());
      return 1;
    }
    JsonNode answer;
    try {
      answer = new ControlClient(home.socket(config)).request(request, System.out::println, wait);
    } catch (ControlClient.NotRunningException e) {
      System.out.println(e.getMessage() + ": nothing to stop");
      return 0;
    } catch (UntrustedPathException e) {
      System.err.println("delayq: stop not sent: " + e.getMessage());
      return 1;
    }
    if (!answer.path("ok").asBoolean()) {
      System.err.println("delayq: stop failed: " + answer.path("error").asText());
      return 1;
    }
    Optional<ProcessHandle> supervisor = ProcessHandle.of(answer.path("pid").asLong());
    if (supervisor.isPresent() && !ProcessExit.await(supervisor.get(), Duration.ofSeconds(30))) {
      System.err.println("delayq: every child is down but the supervisor (pid " + answer.path("pid").asLong()
          + ") has not exited yet");
      return 1;
    }
    System.out.println("stopped");
    return 0;
  }
}

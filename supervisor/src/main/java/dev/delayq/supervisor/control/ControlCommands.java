package dev.delayq.supervisor.control;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.delayq.config.ConfigException;
import dev.delayq.redis.Inspector;
import dev.delayq.supervisor.ChildView;
import dev.delayq.supervisor.QueueInspectors;
import dev.delayq.supervisor.Supervisor;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntSupplier;

/**
 * The server side of {@code status}, {@code reload} and {@code stop}. Runs on control-socket
 * threads: it asks the supervisor through events and may read Redis (queue depths), but never
 * touches the child table itself.
 */
public final class ControlCommands implements ControlServer.Handler {
  private static final long SELF = ProcessHandle.current().pid();
  private static final long ANSWER_SECONDS = 30;

  private final Supervisor supervisor;
  private final IntSupplier configuredWorkers;
  private final Duration defaultStopTimeout;
  private final Optional<String> dashboard;

  /**
   * {@code configuredWorkers} re-reads worker.processes from the config file and environment;
   * {@code dashboard} is the dashboard's URL with its token, which {@code status} tells the
   * owner (only the owner can use this socket).
   */
  public ControlCommands(Supervisor supervisor, IntSupplier configuredWorkers, Duration defaultStopTimeout,
      Optional<String> dashboard) {
    this.supervisor = supervisor;
    this.configuredWorkers = configuredWorkers;
    this.defaultStopTimeout = defaultStopTimeout;
    this.dashboard = dashboard;
  }

  @Override
  public void handle(JsonNode request, ControlServer.Reply reply) {
    String cmd = request.path("cmd").asText("");
    try {
      switch (cmd) {
        case "status" -> reply.line(status());
        case "reload" -> reply.line(reload(request));
        case "stop" -> reply.line(stop(request, reply));
        default -> reply.line(error("unknown command '" + cmd + "' (status, reload, stop)"));
      }
    } catch (ExecutionException e) {
      reply.line(error(e.getCause().getMessage()));
    } catch (TimeoutException e) {
      reply.line(error("the supervisor did not answer within " + ANSWER_SECONDS + "s"));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ConfigException | IllegalArgumentException e) {
      reply.line(error(e.getMessage()));
    }
  }

  private ObjectNode status() throws InterruptedException, ExecutionException, TimeoutException {
    List<ChildView> children = supervisor.snapshot().get(ANSWER_SECONDS, TimeUnit.SECONDS);
    Map<String, Object> status = new LinkedHashMap<>();
    status.put("children", children);
    ObjectNode answer = ok();
    try {
      QueueInspectors queues = supervisor.queues();
      status.put("queue", depths(queues.main()));
      status.put("flow", flow(queues.main()));
      if (queues.all().size() > 1) {
        List<Map<String, Object>> each = new java.util.ArrayList<>();
        queues.all().forEach((name, inspector) -> {
          Map<String, Object> q = new LinkedHashMap<>();
          q.put("name", name);
          q.putAll(depths(inspector));
          q.put("flow", flow(inspector));
          each.add(q);
        });
        status.put("queues", each);
      }
    } catch (RuntimeException e) {
      status.put("queue", null);
      answer.put("queueError", "Redis unreachable: " + e.getMessage());
    }
    answer.set("status", Protocol.JSON.valueToTree(status));
    dashboard.ifPresent(url -> answer.put("dashboard", url));
    return answer;
  }

  private static Map<String, Long> depths(Inspector inspector) {
    Inspector.Depths d = inspector.depths();
    Map<String, Long> queue = new LinkedHashMap<>();
    queue.put("delayed", d.delayed());
    queue.put("ready", d.ready());
    queue.put("inFlight", d.inFlight());
    queue.put("dead", d.dead());
    queue.put("waiting", d.waiting());
    queue.put("batchesOpen", d.batchesOpen());
    return queue;
  }

  private static Map<String, Object> flow(Inspector inspector) {
    Inspector.Flow flow = inspector.flow();
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("paused", flow.paused());
    f.put("held", flow.held());
    f.put("partlyPaused", flow.partlyPaused());
    f.put("waitingForHandler", flow.waitingForHandler());
    return f;
  }

  private ObjectNode reload(JsonNode request) throws InterruptedException, ExecutionException, TimeoutException {
    OptionalInt workers;
    if (request.hasNonNull("workers")) {
      JsonNode n = request.get("workers");
      if (!n.isIntegralNumber() || !n.canConvertToInt()) {
        throw new IllegalArgumentException("workers must be a whole number, got " + n);
      }
      workers = OptionalInt.of(n.asInt()); // the supervisor refuses one outside 0..worker.maxProcesses
    } else {
      workers = OptionalInt.of(configuredWorkers.getAsInt());
    }
    String summary = supervisor.resize(workers).get(ANSWER_SECONDS, TimeUnit.SECONDS);
    return ok().put("message", summary);
  }

  private ObjectNode stop(JsonNode request, ControlServer.Reply reply)
      throws InterruptedException, ExecutionException {
    Duration timeout = request.hasNonNull("timeoutMs")
        ? Duration.ofMillis(request.get("timeoutMs").asLong()) : defaultStopTimeout;
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be longer than 0");
    }
    supervisor.stop(timeout, "stop command", line -> reply.line(Map.of("progress", line))).get();
    return ok().put("message", "stopped");
  }

  static ObjectNode ok() {
    return Protocol.JSON.createObjectNode().put("ok", true).put("pid", SELF);
  }

  static ObjectNode error(String message) {
    return Protocol.JSON.createObjectNode().put("ok", false).put("pid", SELF).put("error", message);
  }
}

package dev.delayq.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.delayq.config.DelayqConfig;
import dev.delayq.redis.Inspector;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code delayq queues}: every queue of the system (worker.queues, or queue.name alone) with its
 * weight or place in the strict order, its depths, and whether it is paused.
 */
@Command(name = "queues", mixinStandardHelpOptions = true,
    description = {"List the queues the workers serve (worker.queues, or queue.name alone), each with its "
        + "weight (or its place in a strict order), its depths (delayed, ready, in flight, dead) and its pause."},
    exitCodeListHeading = ExitCodes.HEADING,
    exitCodeList = {ExitCodes.OK_LINE, ExitCodes.USAGE_LINE, ExitCodes.REDIS_LINE})
final class QueuesCommand implements Callable<Integer> {
  private static final ObjectMapper JSON = new ObjectMapper();

  @ParentCommand
  DelayqCli parent;

  @Spec
  CommandSpec spec;

  @Option(names = "--json", description = "Print one JSON array, one object per queue.")
  boolean json;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    DelayqConfig system = parent.loadSystemConfig();
    ArrayNode all = JSON.createArrayNode();
    if (!json) {
      out.printf("%-24s %8s %10s %10s %10s %10s  %s%n", "QUEUE", system.worker().strict() ? "ORDER" : "WEIGHT",
          "DELAYED", "READY", "IN-FLIGHT", "DEAD", "PAUSED");
    }
    String url = parent.redisUrl(system);
    int place = 0;
    for (String name : system.queueNames()) {
      place++;
      try (Session s = Session.open(system.forQueue(name), url).verified()) {
        Inspector.Depths d = s.inspector.depths();
        Inspector.Flow flow = s.admin.flow();
        String paused = pausedColumn(flow);
        int weight = system.worker().queues().getOrDefault(name, 1);
        if (json) {
          ObjectNode q = all.addObject().put("queue", name);
          if (system.worker().strict()) {
            q.put("order", place);
          } else {
            q.put("weight", weight);
          }
          q.put("delayed", d.delayed()).put("ready", d.ready()).put("inFlight", d.inFlight()).put("dead", d.dead())
              .put("waiting", d.waiting()).put("batchesOpen", d.batchesOpen());
          q.set("paused", JSON.valueToTree(flow.paused().keySet()));
          q.set("partlyPaused", JSON.valueToTree(flow.partlyPaused()));
        } else {
          out.printf("%-24s %8s %10d %10d %10d %10d  %s%n", name, system.worker().strict() ? place : weight,
              d.delayed(), d.ready(), d.inFlight(), d.dead(), paused.isEmpty() ? "-" : paused);
        }
      }
    }
    if (json) {
      out.println(all);
    }
    out.flush();
    return ExitCodes.OK;
  }

  /** "queue", or the paused types; a scope paused on some shards only as "TYPE(2/3 shards)". */
  static String pausedColumn(Inspector.Flow flow) {
    java.util.List<String> parts = new java.util.ArrayList<>();
    if (flow.queuePaused()) {
      parts.add("queue");
    } else {
      parts.addAll(flow.paused().keySet());
    }
    flow.partlyPaused().forEach((scope, p) -> parts.add(("*".equals(scope) ? "queue" : scope)
        + "(" + p.shards() + "/" + p.of() + " shards)"));
    return String.join(",", parts);
  }
}

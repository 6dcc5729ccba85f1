package dev.delayq.redis;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;

/**
 * What a record's head says of the job's part in a workflow (include/workflow.lua): {@code "wf":1}
 * when it takes part in one (its end must be settled by complete.lua, never the batched
 * acknowledgement), {@code "b"} its batch, {@code "w"} the jobs it waited for.
 */
public record WorkflowHead(String batchId, List<String> waitedFor) {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String MARK = ",\"wf\":1";

  public WorkflowHead {
    waitedFor = List.copyOf(waitedFor);
  }

  /**
   * True when the record's job takes part in a workflow, read from the head's text as
   * include/workflow.lua's recordInWorkflow reads it: this runs for every job a worker ends.
   */
  public static boolean inWorkflow(String raw) {
    if (raw == null) {
      return false;
    }
    // searched back from the payload's start, so a plain job's large payload is never scanned
    int end = headEnd(raw);
    return raw.lastIndexOf(MARK, end - MARK.length()) >= 0;
  }

  /** The head's batch and waits; both empty for a record of no workflow or a head that is not JSON. */
  public static WorkflowHead of(String raw) {
    try {
      JsonNode head = JSON.readTree(JobRecord.headOf(raw));
      List<String> waited = new ArrayList<>();
      head.path("w").forEach(n -> waited.add(n.asText()));
      return new WorkflowHead(head.path("b").isTextual() ? head.path("b").asText() : null, waited);
    } catch (java.io.IOException | RuntimeException e) {
      return new WorkflowHead(null, List.of());
    }
  }

  /** Where the head ends: the payload member's comma (the payload may hold any text). */
  private static int headEnd(String raw) {
    int at = raw.indexOf(raw.startsWith("{\"t\":") ? ",\"p\":" : ",\"payload\":");
    return at < 0 ? raw.length() : at;
  }
}

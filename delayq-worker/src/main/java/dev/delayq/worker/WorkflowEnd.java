package dev.delayq.worker;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.delayq.job.JobContext;
import dev.delayq.job.JobResult;
import dev.delayq.job.RetryPolicy;
import dev.delayq.redis.JobRecord;
import dev.delayq.redis.WorkflowHead;
import dev.delayq.redis.Workflows;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The part of a run that workflows and results add (docs/workflows.md): a waiting job's handler
 * sees its batch and what it waited for, with their results; and a done run that ends with a
 * result, or whose job takes part in a workflow, ends by complete.lua (which keeps the result and
 * settles the workflow with the end) instead of the batched acknowledgement. A plain job's run
 * passes through untouched, at the cost of one look at its record's head.
 */
final class WorkflowEnd {
  private static final ObjectMapper JSON = JobContext.payloadMapper();

  private final Workflows workflows;
  private final int maxResultBytes;

  /** {@code workflows} null: results of what a job waited for are not read (a warm-up, a unit test). */
  WorkflowEnd(Workflows workflows, int maxResultBytes) {
    this.workflows = workflows;
    this.maxResultBytes = maxResultBytes;
  }

  /**
   * The handler's context, with the job's batch, waits and their results when it takes part in a
   * workflow ({@code inWorkflow}, as {@link WorkflowHead#inWorkflow} said of {@code rawRecord}).
   */
  JobContext context(JobContext plain, String rawRecord, boolean inWorkflow) {
    if (!inWorkflow) {
      return plain;
    }
    WorkflowHead head = WorkflowHead.of(rawRecord);
    Map<String, String> results = new LinkedHashMap<>();
    if (workflows != null && !head.waitedFor().isEmpty()) {
      workflows.results(head.waitedFor()).forEach((id, kept) -> results.put(id, kept.json() == null ? "" : kept.json()));
    }
    return plain.inWorkflow(head.batchId(), head.waitedFor(), results);
  }

  /**
   * The end of a run whose outcome was decided: an acknowledgement becomes a complete when the
   * handler gave a result or the job takes part in a workflow; a result that cannot be written as
   * JSON, or is over queue.maxResultBytes, fails the attempt instead. Any other outcome stays.
   * {@code inWorkflow}: as {@link WorkflowHead#inWorkflow} said of the job's record.
   */
  Outcome end(JobRecord job, boolean inWorkflow, RunResult run, Outcome decided, RetryPolicy policy, double random) {
    if (!(decided instanceof Outcome.Ack ack)) {
      return decided;
    }
    String json = null;
    if (run instanceof RunResult.Returned r && r.result() instanceof JobResult.Done done && done.value().isPresent()) {
      try {
        json = JSON.writeValueAsString(done.value().get());
      } catch (JsonProcessingException e) {
        return Outcome.failed(job, "its result cannot be written as JSON: " + e.getOriginalMessage(), policy, random);
      }
      int bytes = json.getBytes(StandardCharsets.UTF_8).length;
      if (bytes > maxResultBytes) {
        return Outcome.failed(job, "its result is " + bytes + " bytes of JSON, over queue.maxResultBytes ("
            + maxResultBytes + ")", policy, random);
      }
    }
    if (json == null && !inWorkflow) {
      return decided; // the hot path: acknowledged with the consumer's next call
    }
    return new Outcome.Complete(ack.cancelled(), json);
  }
}

package dev.delayq;

import dev.delayq.redis.NewJob;
import dev.delayq.redis.Workflows;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A handle to a batch of jobs ({@link DelayQueue#openBatch}, {@link DelayQueue#batch}): jobs are
 * added to it while it is open, and after it is closed until it finished (a running job of the
 * batch may add more); {@link #close} gives it its callbacks, of which exactly one fires once,
 * with the end of its last job: {@code onSuccess} when every job ended done, else
 * {@code onComplete}. A handle is only an id: making one costs no Redis call, and several
 * handles (in several processes) may add to the same batch. Thread-safe.
 *
 * <pre>{@code
 * Batch batch = queue.openBatch();
 * for (long product : products) {
 *   batch.add("reprice", Map.of("product", product), Duration.ZERO);
 * }
 * batch.close(BatchCallback.of("rebuild_index", Map.of()), BatchCallback.of("alert_ops", Map.of()));
 * }</pre>
 */
public final class Batch {
  private final DelayQueue queue;
  private final Flows flows;
  private final String id;

  Batch(DelayQueue queue, Flows flows, String id) {
    this.queue = queue;
    this.flows = flows;
    this.id = checkId(id);
  }

  /**
   * Refuses a batch id that a job id could not be: 1 to 128 of the characters A-Z a-z 0-9 _ . : @
   * / + = - (the rule of {@link JobOptions#withId}).
   */
  static String checkId(String id) {
    return JobOptions.checkId("batch id", id);
  }

  public String id() {
    return id;
  }

  /** Adds a job of {@code type} due {@code delay} from now (Redis clock). */
  public EnqueueResult add(String type, Object payload, Duration delay) {
    return add(JobRequest.delay(type, payload, delay));
  }

  /**
   * Adds one job; its options may make it wait for other jobs ({@link JobOptions#waitFor}).
   * IllegalStateException when the batch does not take jobs (unknown, finished or cancelled).
   */
  public EnqueueResult add(JobRequest request) {
    return flows.enqueue(id, List.of(Objects.requireNonNull(request, "request"))).get(0);
  }

  /**
   * Adds jobs, all checked before any is sent (a bad one refuses the call and adds nothing), then
   * sent in calls of up to 1,000 jobs, in order: a failure past the first call leaves the calls
   * before it added.
   */
  public List<EnqueueResult> addAll(List<JobRequest> requests) {
    return flows.enqueue(id, requests);
  }

  /**
   * Closes the batch with its callbacks (either may be null: nothing fires for that case). When
   * no job of the batch is pending the callback is enqueued in this call. The batch's status
   * after the close, with the callbacks' ids. IllegalStateException when it was closed already,
   * finished, cancelled or never opened.
   */
  public BatchStatus close(BatchCallback onSuccess, BatchCallback onComplete) {
    Workflows w = flows.workflows();
    w.closeBatch(id, callback(onSuccess), callback(onComplete));
    return queue.batchStatus(id).orElseThrow(() -> new IllegalStateException("batch " + id
        + " was closed and is already forgotten (queue.idRetention)"));
  }

  private Workflows.Callback callback(BatchCallback c) {
    if (c == null) {
      return null;
    }
    String callbackId = c.id() == null ? queue.newJobs().newId() : c.id();
    JobOptions options = c.id() == null ? JobOptions.defaults() : JobOptions.withId(c.id());
    NewJob job = queue.newJobs().prepare(new JobRequest(c.type(), c.payload(), c.delay(), null, options), callbackId,
        Flows.extra(null, List.of()));
    return new Workflows.Callback(callbackId, job.recordHead(), job.payloadJson(), job.when());
  }

  @Override
  public String toString() {
    return "Batch[" + id + "]";
  }
}

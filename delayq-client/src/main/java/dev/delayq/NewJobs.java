package dev.delayq;

import dev.delayq.redis.Enqueued;
import dev.delayq.redis.JobRecord;
import dev.delayq.redis.NewJob;
import dev.delayq.tracing.Tracing;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * A producer's requests made into the jobs the enqueue scripts take (checked type and payload,
 * the record head with its headers and trace context, the id chosen or generated), and the
 * scripts' answers made into results.
 */
final class NewJobs {
  private static final Tracing TRACING = Tracing.get();

  private final Payloads payloads;
  private final int defaultMaxAttempts;
  /** Where generated ids come from: {@link JobIds#newId}, or a test's made-up ones (a forced collision). */
  private final Supplier<String> ids;

  NewJobs(Payloads payloads, int defaultMaxAttempts, Supplier<String> ids) {
    this.payloads = payloads;
    this.defaultMaxAttempts = defaultMaxAttempts;
    this.ids = ids;
  }

  NewJob prepare(JobRequest r) {
    return prepare(r, r.options().id() == null ? ids.get() : r.options().id(), "");
  }

  /** {@code r} checked and made a job under {@code id}, with {@code extra} members in its head (workflows'). */
  NewJob prepare(JobRequest r, String id, String extra) {
    DelayQueue.checkType(r.type());
    String payload = payloads.toJson(r.payload());
    int maxAttempts = r.options().maxAttempts() == null ? defaultMaxAttempts : r.options().maxAttempts();
    // a caller-chosen id stays taken for queue.idRetention once the job ended
    String head = JobRecord.newHead(r.type(), maxAttempts, r.options().id() != null, headers(r.options()), extra);
    // the request checked its due time against DueTime's range when it was made
    if (r.delay() != null) {
      return new NewJob(id, head, payload, r.delay().toMillis(), false, r.options().ifPending().rule());
    }
    return new NewJob(id, head, payload, r.at().toEpochMilli(), true, r.options().ifPending().rule());
  }

  /**
   * The record's headers: the caller's headers and the trace context of the span this enqueue
   * runs in (when OpenTelemetry is on the classpath); none at all when there are none, so such
   * records carry no headers member.
   */
  private static Map<String, String> headers(JobOptions options) {
    if (options.headers().isEmpty() && !TRACING.enabled()) {
      return Map.of();  // the hot path without headers or tracing allocates nothing for them
    }
    Map<String, String> headers = new TreeMap<>(options.headers());
    TRACING.inject(headers);
    return headers;
  }

  /** The result of job {@code id} as the enqueue scripts answered {@code e}. */
  static EnqueueResult result(String id, Enqueued e) {
    return switch (e.code()) {
      case ACCEPTED -> new EnqueueResult(id, EnqueueResult.Status.ACCEPTED, Instant.ofEpochMilli(e.value()), null);
      case PENDING -> new EnqueueResult(id, EnqueueResult.Status.PENDING, null, null);
      case DEAD -> new EnqueueResult(id, EnqueueResult.Status.DEAD, null, null);
      case ENDED -> new EnqueueResult(id, EnqueueResult.Status.FINISHED, null, Instant.ofEpochMilli(e.value()));
      // only a producer with a larger queue.maxPayloadBytes than the one it talks to gets here
      case TOO_LARGE -> throw new IllegalArgumentException("job " + id + ": payload is " + e.value()
          + " bytes, over the limit of the queue's enqueue script");
      case CHANGED -> new EnqueueResult(id, EnqueueResult.Status.CHANGED, Instant.ofEpochMilli(e.value()), null);
      case REFUSED_RUNNING -> new EnqueueResult(id, EnqueueResult.Status.REFUSED_RUNNING, null, null);
      case REFUSED_MALFORMED -> new EnqueueResult(id, EnqueueResult.Status.REFUSED_MALFORMED, null, null);
      // the value is how many jobs it waits for; its due time comes when they ended
      case WAITING -> new EnqueueResult(id, EnqueueResult.Status.WAITING, null, null);
      case DEPENDENCY_FAILED -> new EnqueueResult(id, EnqueueResult.Status.DEPENDENCY_FAILED, null, null);
    };
  }

  /** A generated id (a job's, a batch's, a callback's). */
  String newId() {
    return ids.get();
  }

  /** The same job under a new generated id (its first met a stored job's). */
  NewJob withNewId(NewJob job) {
    return new NewJob(ids.get(), job.recordHead(), job.payloadJson(), job.when(), job.absolute(), job.ifPending());
  }
}

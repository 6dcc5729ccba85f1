package dev.delayq;

import dev.delayq.redis.NewJob;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The jobs of one enqueue call that an {@link EnqueueGate} held back: checked, with their ids
 * chosen, and not yet sent. {@link #send()} sends them, as the call would have; a delay counts
 * from that moment (by the Redis server's clock), not from the call. They can be sent once: a
 * second send would enqueue jobs with generated ids twice.
 */
public final class HeldJobs {
  private final DelayQueue queue;
  private final List<JobRequest> requests;
  private final List<NewJob> jobs;
  private final AtomicBoolean sent = new AtomicBoolean();

  HeldJobs(DelayQueue queue, List<JobRequest> requests, List<NewJob> jobs) {
    this.queue = queue;
    this.requests = List.copyOf(requests);
    this.jobs = List.copyOf(jobs);
  }

  /** The ids the caller was told, in the order of the call. */
  public List<String> ids() {
    return jobs.stream().map(NewJob::id).toList();
  }

  /** The job types, in the order of the call (for a log line: types and ids, never payloads). */
  public List<String> types() {
    return requests.stream().map(JobRequest::type).toList();
  }

  public int size() {
    return jobs.size();
  }

  /** Sends these jobs now, pipelined in batches of 1,000; the results in the order of the call. */
  public List<EnqueueResult> send() {
    return sendInOrder(List.of(this));
  }

  /**
   * Sends {@code held} in its order: the calls of one queue that follow each other go out together,
   * pipelined (a transaction's fifty single enqueues cost one round trip, not fifty).
   */
  public static List<EnqueueResult> sendInOrder(List<HeldJobs> held) {
    for (HeldJobs h : held) {
      if (h.sent.get()) {
        throw new IllegalStateException("held jobs " + h.ids() + " were sent already");
      }
    }
    held.forEach(h -> h.sent.set(true));
    List<EnqueueResult> results = new ArrayList<>();
    int from = 0;
    while (from < held.size()) {
      DelayQueue q = held.get(from).queue;
      List<JobRequest> requests = new ArrayList<>();
      List<NewJob> jobs = new ArrayList<>();
      int to = from;
      for (; to < held.size() && held.get(to).queue == q; to++) {
        requests.addAll(held.get(to).requests);
        jobs.addAll(held.get(to).jobs);
      }
      results.addAll(q.sendHeld(requests, jobs));
      from = to;
    }
    return results;
  }
}

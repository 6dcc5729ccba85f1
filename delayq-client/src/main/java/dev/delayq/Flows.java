package dev.delayq;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import dev.delayq.redis.Enqueued;
import dev.delayq.redis.NewJob;
import dev.delayq.redis.Workflows;
import dev.delayq.redis.Workflows.FlowJob;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * The enqueues of workflows for a {@link DelayQueue}: jobs that wait for others, awaitable jobs, a
 * batch's jobs, chains and fan-ins, each turned into a job whose record head carries its workflow
 * members ({@code ,"b":"<batch>","w":[...],"wf":1}) and sent through the workflow script, which
 * checks every job of a call before it writes any. Ordinary jobs never come here.
 *
 * <p>These calls go to Redis at once, whatever the producer's {@link EnqueueGate}: a batch's
 * open, adds and close, and the jobs that wait for each other, must reach Redis in the order they
 * were made, and only jobs of a workflow can be waited for, so none of them depends on a held job.
 */
final class Flows {
  /** The most jobs one script call takes (as the plain enqueueAll's pipelines). */
  static final int CALL = 1000;

  private final DelayQueue queue;
  private final Workflows workflows;

  Flows(DelayQueue queue, Workflows workflows) {
    this.queue = queue;
    this.workflows = workflows;
  }

  Workflows workflows() {
    return workflows;
  }

  /** A caller's request and the workflow job made of it (its id chosen, its waits merged). */
  private record Step(JobRequest request, FlowJob job) {}

  /** Enqueues {@code requests} into {@code batchId} (null: none), each with its own waits; checked whole first. */
  List<EnqueueResult> enqueue(String batchId, List<JobRequest> requests) {
    List<Step> steps = new ArrayList<>(requests.size());
    for (int i = 0; i < requests.size(); i++) {
      JobRequest r = requests.get(i);
      steps.add(step(requests.size() == 1 ? "" : "job " + i + " of the call: ", r, id(r), batchId,
          r.options().waitFor()));
    }
    return send(batchId, steps, CALL);
  }

  /**
   * An enqueueAll where some jobs take part in a workflow: all checked first; then, in the
   * order of the call, runs of ordinary jobs as enqueueAll sends them (held by the gate when it
   * holds them) and runs of workflow jobs through the workflow script.
   */
  List<EnqueueResult> enqueueMixed(List<JobRequest> requests) {
    Object[] prepared = new Object[requests.size()];
    List<JobRequest> plainRequests = new ArrayList<>();
    List<NewJob> plainJobs = new ArrayList<>();
    for (int i = 0; i < requests.size(); i++) {
      JobRequest r = requests.get(i);
      try {
        if (r.options().inWorkflow()) {
          prepared[i] = step("", r, id(r), null, r.options().waitFor());
        } else {
          NewJob job = queue.newJobs().prepare(r);
          prepared[i] = job;
          plainRequests.add(r);
          plainJobs.add(job);
        }
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("job " + i + " of the batch: " + e.getMessage(), e);
      }
    }
    boolean plainHeld = !plainJobs.isEmpty() && queue.held(plainRequests, plainJobs);
    List<EnqueueResult> results = new ArrayList<>(requests.size());
    int from = 0;
    while (from < requests.size()) {
      boolean flow = prepared[from] instanceof Step;
      int to = from;
      while (to < requests.size() && (prepared[to] instanceof Step) == flow) {
        to++;
      }
      if (flow) {
        List<Step> run = new ArrayList<>(to - from);
        for (int i = from; i < to; i++) {
          run.add((Step) prepared[i]);
        }
        results.addAll(send(null, run, CALL));
      } else if (plainHeld) {
        for (int i = from; i < to; i++) {
          results.add(EnqueueResult.pendingCommit(((NewJob) prepared[i]).id()));
        }
      } else {
        List<NewJob> run = new ArrayList<>(to - from);
        for (int i = from; i < to; i++) {
          run.add((NewJob) prepared[i]);
        }
        results.addAll(queue.sendHeld(requests.subList(from, to), run));
      }
      from = to;
    }
    return results;
  }

  /** Step i + 1 waits for step i; all in one script call, so a bad step enqueues nothing. */
  List<EnqueueResult> chain(JobRequest... requests) {
    List<JobRequest> all = Arrays.asList(Objects.requireNonNull(requests, "steps"));
    if (all.isEmpty()) {
      throw new IllegalArgumentException("a chain needs at least one step");
    }
    List<Step> steps = new ArrayList<>(all.size());
    String previous = null;
    for (int i = 0; i < all.size(); i++) {
      JobRequest r = Objects.requireNonNull(all.get(i), "step " + i);
      String id = id(r);
      steps.add(step("step " + i + " of the chain: ", r, id, null, merged(r.options().waitFor(), previous == null
          ? List.of() : List.of(previous))));
      previous = id;
    }
    return send(null, steps, Integer.MAX_VALUE);
  }

  /** The parent waits for every child: children and parent in one call up to {@link #CALL} jobs, else in calls of it. */
  FanIn fanIn(List<JobRequest> children, JobRequest parent) {
    Objects.requireNonNull(children, "children");
    Objects.requireNonNull(parent, "parent");
    if (children.isEmpty()) {
      throw new IllegalArgumentException("a fan-in needs at least one child (enqueue the parent alone)");
    }
    List<Step> steps = new ArrayList<>(children.size() + 1);
    List<String> childIds = new ArrayList<>(children.size());
    for (int i = 0; i < children.size(); i++) {
      JobRequest r = Objects.requireNonNull(children.get(i), "child " + i);
      String id = id(r);
      steps.add(step("child " + i + " of the fan-in: ", r, id, null, r.options().waitFor()));
      childIds.add(id);
    }
    steps.add(step("the parent of the fan-in: ", parent, id(parent), null,
        merged(parent.options().waitFor(), childIds)));
    List<EnqueueResult> results = send(null, steps, CALL);
    return new FanIn(List.copyOf(results.subList(0, children.size())), results.get(children.size()));
  }

  private String id(JobRequest r) {
    return r.options().id() == null ? queue.newJobs().newId() : r.options().id();
  }

  private static List<String> merged(List<String> own, List<String> more) {
    LinkedHashSet<String> all = new LinkedHashSet<>(own);
    all.addAll(more);
    return List.copyOf(all);
  }

  /** {@code r} checked and made a workflow job; a refusal's message starts with {@code where}. */
  private Step step(String where, JobRequest r, String id, String batchId, List<String> waits) {
    try {
      if (!waits.isEmpty() && r.at() != null) {
        throw new IllegalArgumentException("job " + id + " waits for other jobs, so it takes a delay, not a due "
            + "instant (" + r.at() + "): its delay counts from the end of the jobs it waits for");
      }
      if (r.options().ifPending() != IfPending.KEEP) {
        throw new IllegalArgumentException("job " + id + ": ifPending " + r.options().ifPending()
            + " cannot be used in a workflow (a batch, a wait, a chain, a fan-in, or awaitable): only KEEP");
      }
      if (waits.contains(id)) {
        throw new IllegalArgumentException("job " + id + " cannot wait for itself");
      }
      NewJob job = queue.newJobs().prepare(r, id, extra(batchId, waits));
      return new Step(r, new FlowJob(job, waits, r.options().ifDependencyFails().wire()));
    } catch (IllegalArgumentException e) {
      throw where.isEmpty() ? e : new IllegalArgumentException(where + e.getMessage(), e);
    }
  }

  /** The workflow members of a record head, in the order of the spec: {@code ,"b":..,"w":[..],"wf":1}. */
  static String extra(String batchId, List<String> waits) {
    StringBuilder extra = new StringBuilder();
    if (batchId != null) {
      extra.append(",\"b\":").append(json(batchId));
    }
    if (!waits.isEmpty()) {
      extra.append(",\"w\":[");
      for (int i = 0; i < waits.size(); i++) {
        extra.append(i == 0 ? "" : ",").append(json(waits.get(i)));
      }
      extra.append(']');
    }
    return extra.append(",\"wf\":1").toString();
  }

  private static String json(String s) {
    return '"' + new String(JsonStringEncoder.getInstance().quoteAsString(s)) + '"';
  }

  /**
   * Sends {@code steps} in calls of at most {@code perCall}, in order; a generated id that met a
   * stored job's is sent again alone under a new one. (A job of the same call that waits for it
   * then waits for the stored job: one in 2^72 per stored job, as ids go.)
   */
  private List<EnqueueResult> send(String batchId, List<Step> steps, int perCall) {
    List<EnqueueResult> results = new ArrayList<>(steps.size());
    for (int from = 0; from < steps.size(); from += perCall) {
      List<Step> slice = steps.subList(from, (int) Math.min(steps.size(), (long) from + perCall));
      List<Enqueued> replies = workflows.enqueue(batchId, slice.stream().map(Step::job).toList());
      for (int k = 0; k < slice.size(); k++) {
        FlowJob f = slice.get(k).job();
        Function<NewJob, Enqueued> again = job -> workflows.enqueue(batchId,
            List.of(new FlowJob(job, f.waitsFor(), f.ifDependencyFails()))).get(0);
        results.add(queue.settled(slice.get(k).request(), f.job(), replies.get(k), again));
      }
    }
    return results;
  }
}

package dev.delayq;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Per-job options at enqueue: a caller-chosen id (which makes the enqueue idempotent), the
 * number of attempts before the job goes to dead, and headers: strings that travel with the job
 * apart from its payload (trace context, a tenant, a correlation id) and that its handler reads
 * with {@link dev.delayq.job.JobContext#headers()}, and what to do when a job with that id is still
 * pending ({@link IfPending}: keep it, or debounce and replace it). Null fields mean "generate"
 * and "configured".
 *
 * <p>Workflows (docs/workflows.md): {@link #waitFor} makes the job wait for other jobs, and
 * {@link #ifDependencyFails} says what it does when one of them does not end done;
 * {@link #awaitable()} lets other jobs wait for this one later. A job with any of these goes
 * through the workflow script; a job without them takes the ordinary enqueue, which pays nothing
 * for workflows.
 *
 * @param waitFor the ids of the jobs this one waits for (in order, without repeats; empty: none)
 * @param ifDependencyFails what it does when one of them does not end done (default FAIL)
 * @param isAwaitable true when other jobs may wait for this one ({@link #awaitable()})
 */
public record JobOptions(String id, Integer maxAttempts, Map<String, String> headers, IfPending ifPending,
    List<String> waitFor, DependencyFailure ifDependencyFails, boolean isAwaitable) {
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9_.:@/+=-]{1,128}");
  private static final Pattern HEADER_NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");
  /** Headers are small metadata; the payload is the place for data. */
  static final int MAX_HEADERS = 32;
  static final int MAX_HEADER_VALUE = 1024;

  public JobOptions {
    ifPending = ifPending == null ? IfPending.KEEP : ifPending;
    if (ifPending != IfPending.KEEP && id == null) {
      throw new IllegalArgumentException("ifPending " + ifPending + " changes the pending job with the same id: "
          + "give the job an id");
    }
    if (id != null) {
      checkId("job id", id);
    }
    if (maxAttempts != null && (maxAttempts < 1 || maxAttempts > 1000)) {
      throw new IllegalArgumentException("maxAttempts must be between 1 and 1000, got " + maxAttempts);
    }
    headers = checkHeaders(headers);
    // the options of a plain job (every enqueue's) allocate nothing for workflows
    waitFor = waitFor == null || waitFor.isEmpty() ? List.of() : checkWaits(waitFor);
    ifDependencyFails = ifDependencyFails == null ? DependencyFailure.FAIL : ifDependencyFails;
  }

  /** Options of a job outside workflows (the constructor of before they came). */
  public JobOptions(String id, Integer maxAttempts, Map<String, String> headers, IfPending ifPending) {
    this(id, maxAttempts, headers, ifPending, List.of(), DependencyFailure.FAIL, false);
  }

  public JobOptions(String id, Integer maxAttempts) {
    this(id, maxAttempts, Map.of());
  }

  public JobOptions(String id, Integer maxAttempts, Map<String, String> headers) {
    this(id, maxAttempts, headers, IfPending.KEEP);
  }

  public static JobOptions defaults() {
    return new JobOptions(null, null);
  }

  /** Enqueue under this id; a second enqueue with the same id changes nothing. */
  public static JobOptions withId(String id) {
    return new JobOptions(id, null);
  }

  public JobOptions maxAttempts(int attempts) {
    return new JobOptions(id, attempts, headers, ifPending, waitFor, ifDependencyFails, isAwaitable);
  }

  public JobOptions id(String newId) {
    return new JobOptions(newId, maxAttempts, headers, ifPending, waitFor, ifDependencyFails, isAwaitable);
  }

  /** These options with header {@code name} set to {@code value} (names are case-sensitive). */
  public JobOptions header(String name, String value) {
    Map<String, String> more = new TreeMap<>(headers);
    more.put(name, value);
    return new JobOptions(id, maxAttempts, more, ifPending, waitFor, ifDependencyFails, isAwaitable);
  }

  /** These options with {@code more} headers added (a name given twice takes the new value). */
  public JobOptions headers(Map<String, String> more) {
    Map<String, String> all = new TreeMap<>(headers);
    all.putAll(more);
    return new JobOptions(id, maxAttempts, all, ifPending, waitFor, ifDependencyFails, isAwaitable);
  }

  /** What to do when a job with this id is still delayed or ready (default: keep it). */
  public JobOptions ifPending(IfPending option) {
    return new JobOptions(id, maxAttempts, headers, option, waitFor, ifDependencyFails, isAwaitable);
  }

  /**
   * These options with the job waiting for the jobs of {@code ids} (added to those it waits for
   * already): it stays in {@code waiting}, out of ready and of the lateness figures, until every
   * one of them ended; then it falls due after its own delay, counted from then. Each must have
   * been enqueued in a workflow (a batch, a chain, a fan-in, a wait, or {@link #awaitable()}),
   * and be pending or ended within the id retention, else the enqueue is refused. A job that
   * waits takes a delay, not a due instant.
   */
  public JobOptions waitFor(String... ids) {
    return waitFor(Arrays.asList(Objects.requireNonNull(ids, "ids")));
  }

  /** As {@link #waitFor(String...)}. */
  public JobOptions waitFor(Collection<String> ids) {
    List<String> all = new ArrayList<>(waitFor);
    all.addAll(Objects.requireNonNull(ids, "ids"));
    return new JobOptions(id, maxAttempts, headers, ifPending, all, ifDependencyFails, isAwaitable);
  }

  /** What the job does when a job it waits for does not end done (default {@link DependencyFailure#FAIL}). */
  public JobOptions ifDependencyFails(DependencyFailure policy) {
    return new JobOptions(id, maxAttempts, headers, ifPending, waitFor, policy, isAwaitable);
  }

  /**
   * These options with the job enqueued in a workflow ({@code "wf":1} in its record), so that
   * jobs enqueued later may wait for it, and its end (with its result) is kept for the id
   * retention. Its end then goes through the workflow script rather than the batched
   * acknowledgement, which costs a little: leave it off for jobs nothing waits for.
   */
  public JobOptions awaitable() {
    return new JobOptions(id, maxAttempts, headers, ifPending, waitFor, ifDependencyFails, true);
  }

  /** True when a job with these options goes through the workflow script: it waits, or may be waited for. */
  boolean inWorkflow() {
    return isAwaitable || !waitFor.isEmpty();
  }

  /**
   * Refuses an id that is not 1 to 128 of the characters a job id may hold (a job's, a batch's),
   * with a message that starts with {@code what}.
   */
  static String checkId(String what, String id) {
    if (id == null || !ID.matcher(id).matches()) {
      throw new IllegalArgumentException(what + " '" + id
          + "' is not valid: use 1 to 128 of the characters A-Z a-z 0-9 _ . : @ / + = -");
    }
    return id;
  }

  private static List<String> checkWaits(List<String> ids) {
    LinkedHashSet<String> unique = new LinkedHashSet<>();
    for (String dep : ids) {
      unique.add(checkId("waitFor: job id", dep));
    }
    return List.copyOf(unique);
  }

  private static Map<String, String> checkHeaders(Map<String, String> headers) {
    if (headers == null || headers.isEmpty()) {
      return Map.of();
    }
    if (headers.size() > MAX_HEADERS) {
      throw new IllegalArgumentException("a job has at most " + MAX_HEADERS + " headers, got " + headers.size());
    }
    Map<String, String> checked = new TreeMap<>();
    headers.forEach((name, value) -> {
      if (name == null || !HEADER_NAME.matcher(name).matches()) {
        throw new IllegalArgumentException("header name '" + name
            + "' is not valid: use 1 to 64 of the characters A-Z a-z 0-9 _ . -");
      }
      if (value == null) {
        throw new IllegalArgumentException("header '" + name + "' has no value");
      }
      if (value.length() > MAX_HEADER_VALUE) {
        throw new IllegalArgumentException("header '" + name + "' is " + value.length()
            + " characters long, over the limit of " + MAX_HEADER_VALUE);
      }
      UnicodeText.check("header '" + name + "'", value);
      checked.put(name, value);
    });
    return Map.copyOf(checked);
  }
}

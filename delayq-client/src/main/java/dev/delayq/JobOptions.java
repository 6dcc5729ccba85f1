package dev.delayq;

import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Per-job options at enqueue: a caller-chosen id (which makes the enqueue idempotent), the
 * number of attempts before the job goes to dead, and headers: strings that travel with the job
 * apart from its payload (trace context, a tenant, a correlation id) and that its handler reads
 * with {@link dev.delayq.job.JobContext#headers()}, and what to do when a job with that id is still
 * pending ({@link IfPending}: keep it, or debounce and replace it). Null fields mean "generate"
 * and "configured".
 */
public record JobOptions(String id, Integer maxAttempts, Map<String, String> headers, IfPending ifPending) {
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
    if (id != null && !ID.matcher(id).matches()) {
      throw new IllegalArgumentException("job id '" + id
          + "' is not valid: use 1 to 128 of the characters A-Z a-z 0-9 _ . : @ / + = -");
    }
    if (maxAttempts != null && (maxAttempts < 1 || maxAttempts > 1000)) {
      throw new IllegalArgumentException("maxAttempts must be between 1 and 1000, got " + maxAttempts);
    }
    headers = checkHeaders(headers);
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
    return new JobOptions(id, attempts, headers, ifPending);
  }

  public JobOptions id(String newId) {
    return new JobOptions(newId, maxAttempts, headers, ifPending);
  }

  /** These options with header {@code name} set to {@code value} (names are case-sensitive). */
  public JobOptions header(String name, String value) {
    Map<String, String> more = new TreeMap<>(headers);
    more.put(name, value);
    return new JobOptions(id, maxAttempts, more, ifPending);
  }

  /** These options with {@code more} headers added (a name given twice takes the new value). */
  public JobOptions headers(Map<String, String> more) {
    Map<String, String> all = new TreeMap<>(headers);
    all.putAll(more);
    return new JobOptions(id, maxAttempts, all, ifPending);
  }

  /** What to do when a job with this id is still delayed or ready (default: keep it). */
  public JobOptions ifPending(IfPending option) {
    return new JobOptions(id, maxAttempts, headers, option);
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

package dev.delayq;

/**
 * Per-job options at enqueue: a caller-chosen id (which makes the enqueue idempotent) and the
 * number of attempts before the job goes to dead. Null fields mean "generate" and "configured".
 */
public record JobOptions(String id, Integer maxAttempts) {
  private static final java.util.regex.Pattern ID = java.util.regex.Pattern.compile("[A-Za-z0-9_.:@/+=-]{1,128}");

  public JobOptions {
    if (id != null && !ID.matcher(id).matches()) {
      throw new IllegalArgumentException("job id '" + id
          + "' is not valid: use 1 to 128 of the characters A-Z a-z 0-9 _ . : @ / + = -");
    }
    if (maxAttempts != null && (maxAttempts < 1 || maxAttempts > 1000)) {
      throw new IllegalArgumentException("maxAttempts must be between 1 and 1000, got " + maxAttempts);
    }
  }

  public static JobOptions defaults() {
    return new JobOptions(null, null);
  }

  /** Enqueue under this id; a second enqueue with the same id changes nothing. */
  public static JobOptions withId(String id) {
    return new JobOptions(id, null);
  }

  public JobOptions maxAttempts(int attempts) {
    return new JobOptions(id, attempts);
  }

  public JobOptions id(String newId) {
    return new JobOptions(newId, maxAttempts);
  }
}

package dev.delayq.spring;

import dev.delayq.process.LogText;
import java.util.List;

/**
 * The jobs a committed transaction enqueued could not be sent after the commit (Redis down, say).
 * The transaction stays committed: Spring throws this from the commit to the code that committed,
 * and runs no later after-commit callbacks of that transaction. Which of the jobs reached Redis
 * is unknown; enqueueing them again under the same caller-chosen ids adds none twice.
 */
public final class AfterCommitEnqueueException extends RuntimeException {
  private static final int IDS_SHOWN = 20;

  private final transient List<String> jobIds;

  AfterCommitEnqueueException(List<String> jobIds, List<String> types, RuntimeException cause) {
    super(jobIds.size() + " job(s) enqueued in a committed transaction may not have been sent (types "
        + types + ", ids " + shown(jobIds) + "): " + LogText.escape(String.valueOf(cause.getMessage()))
        + "; the transaction stays committed", cause);
    this.jobIds = List.copyOf(jobIds);
  }

  /** The ids of the jobs that may not have been sent, in the order they were enqueued. */
  public List<String> jobIds() {
    return jobIds;
  }

  private static String shown(List<String> ids) {
    return ids.size() <= IDS_SHOWN ? ids.toString()
        : ids.subList(0, IDS_SHOWN) + " and " + (ids.size() - IDS_SHOWN) + " more";
  }
}

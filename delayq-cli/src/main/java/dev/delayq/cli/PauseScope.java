package dev.delayq.cli;

import dev.delayq.redis.Admin;

/** The {@code QUEUE[:TYPE]} argument of pause and resume: the whole queue, or one job type in it. */
record PauseScope(String queue, String type) {

  /**
   * {@code text} as a scope of one of {@code queues} (the system's, worker.queues, with the one
   * --queue names): the longest queue name it is or starts with, since a queue name may hold ':'.
   */
  static PauseScope parse(String text, java.util.Collection<String> queues) {
    String best = null;
    for (String q : queues) {
      if ((text.equals(q) || text.startsWith(q + ":")) && (best == null || q.length() > best.length())) {
        best = q;
      }
    }
    if (best == null) {
      throw CliException.badInput("'" + text + "' is not QUEUE or QUEUE:TYPE of this system's queue"
          + (queues.size() == 1 ? "" : "s") + " " + String.join(", ", queues)
          + " (set another with --queue, --config or DELAYQ_QUEUE)");
    }
    return parse(text, best);
  }

  /** {@code text} as a scope of {@code queue} (the configured one; a queue name may hold ':' too). */
  static PauseScope parse(String text, String queue) {
    if (text.equals(queue)) {
      return new PauseScope(queue, null);
    }
    if (text.startsWith(queue + ":") && text.length() > queue.length() + 1) {
      return new PauseScope(queue, text.substring(queue.length() + 1));
    }
    throw CliException.badInput("'" + text + "' is not QUEUE or QUEUE:TYPE of this system's queue '" + queue
        + "' (set another with --config or DELAYQ_QUEUE)");
  }

  /** The scope as Admin takes it. */
  String adminScope() {
    return type == null ? Admin.WHOLE_QUEUE : type;
  }

  @Override
  public String toString() {
    return type == null ? "queue " + queue : "type " + type + " in queue " + queue;
  }
}

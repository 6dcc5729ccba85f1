package dev.delayq.cli;

import dev.delayq.ChangeResult;
import dev.delayq.DelayQueue;
import dev.delayq.config.DelayqConfig;
import dev.delayq.process.LogText;
import java.io.PrintWriter;
import java.util.function.Function;

/**
 * What promote, reschedule and edit share: a producer on the configured queue, the one script
 * call, and the answer: one line on stdout when the job changed, else a refusal that says
 * where the job is (running on which consumer, dead, or unknown), exit 1.
 */
final class JobChanges {
  private JobChanges() {}

  static int run(DelayqCli parent, PrintWriter out, String verb, Function<DelayQueue, ChangeResult> change) {
    DelayqConfig config = parent.loadConfig();
    ChangeResult r;
    try (DelayQueue queue = DelayQueue.connect(config, parent.redisUrl(config))) {
      r = change.apply(queue);
    }
    if (r.changed()) {
      out.println(verb + " " + LogText.escape(r.describe()));
      out.flush();
      return ExitCodes.OK;
    }
    if (r.status() == ChangeResult.Status.RUNNING) {
      try (Session s = parent.connect()) {
        s.admin.inspect(r.id()).ifPresent(job -> {
          throw CliException.notFound("job " + r.id() + " cannot be " + verb + ": it is "
              + InspectCommand.describe(job) + " (only delayed or ready jobs can be)");
        });
      }
    }
    throw CliException.notFound(r.describe());
  }
}

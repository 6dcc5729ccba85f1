package dev.delayq.e2e.handlers;

import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;
import java.util.TreeMap;

/**
 * test_flow: a workflow's step. Records its start (as test_record), and in the list "seen" (when
 * given) the results of the jobs it waited for as it read them; sleeps "sleepMs" on its first
 * attempt only; fails when "fail" is true; ends done with the result {"attempt":N,"by":"<id>"}.
 */
public final class FlowStepHandler implements JobHandler {
  @Override
  public String type() {
    return "test_flow";
  }

  @Override
  public JobResult handle(JobContext ctx) throws InterruptedException {
    Recorder.record(ctx);
    String seenList = ctx.payload().path("seen").asText();
    if (!seenList.isEmpty()) {
      StringBuilder seen = new StringBuilder(ctx.id()).append(" saw");
      for (String id : ctx.waitedFor()) {
        seen.append(' ').append(id).append('=').append(ctx.resultOf(id).map(Object::toString).orElse("none"));
      }
      Recorder.push(seenList, seen.toString());
    }
    long sleep = ctx.payload().path("sleepMs").asLong(0);
    if (sleep > 0 && ctx.attempt() == 1) {
      Thread.sleep(sleep);
    }
    if (ctx.payload().path("fail").asBoolean(false)) {
      throw new IllegalStateException("test_flow fails by request");
    }
    TreeMap<String, Object> result = new TreeMap<>();
    result.put("by", ctx.id());
    result.put("attempt", ctx.attempt());
    return JobResult.done(result);
  }
}

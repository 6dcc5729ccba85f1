package dev.delayq.workerproc.handlers;

import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;
import dev.delayq.process.LogText;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The typical delayed job: an order not paid in time is closed. This one only says what
 * it would do, on the {@code delayq.jobs} log, so a demo shows it running and how late it ran.
 * Payload: {@code {"order_id": 1001}}.
 */
public final class OrderCloseHandler implements JobHandler {
  private static final Logger jobs = LoggerFactory.getLogger("delayq.jobs");

  @Override
  public String type() {
    return "order_close";
  }

  @Override
  public JobResult handle(JobContext ctx) {
    long lateMs = System.currentTimeMillis() - ctx.dueAt().toEpochMilli();
    jobs.info("order_close: closing unpaid order {} (job {}, attempt {}, started {} ms after due)",
        LogText.escape(ctx.payload().path("order_id").asText("?")), LogText.escape(ctx.id()), ctx.attempt(), lateMs);
    return JobResult.done();
  }
}

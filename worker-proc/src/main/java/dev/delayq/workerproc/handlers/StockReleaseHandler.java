package dev.delayq.workerproc.handlers;

import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;
import dev.delayq.process.LogText;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The second typical delayed job: stock held for an unpaid order is released. Like
 * {@link OrderCloseHandler} it only logs what it would do, on {@code delayq.jobs}.
 * Payload: {@code {"sku": "A-1", "quantity": 2}}.
 */
public final class StockReleaseHandler implements JobHandler {
  private static final Logger jobs = LoggerFactory.getLogger("delayq.jobs");

  @Override
  public String type() {
    return "stock_release";
  }

  @Override
  public JobResult handle(JobContext ctx) {
    long lateMs = System.currentTimeMillis() - ctx.dueAt().toEpochMilli();
    jobs.info("stock_release: releasing {} of {} (job {}, attempt {}, started {} ms after due)",
        ctx.payload().path("quantity").asInt(1), LogText.escape(ctx.payload().path("sku").asText("?")),
        LogText.escape(ctx.id()), ctx.attempt(), lateMs);
    return JobResult.done();
  }
}

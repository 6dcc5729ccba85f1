package example.orders;

import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;
import org.springframework.stereotype.Component;

/** A Spring bean the in-app worker picks up: closes the order when its job runs. */
@Component
public class OrderCloseHandler implements JobHandler {
  private final Orders orders;

  public OrderCloseHandler(Orders orders) {
    this.orders = orders;
  }

  @Override
  public String type() {
    return "order_close";
  }

  @Override
  public JobResult handle(JobContext job) {
    orders.closeIfUnpaid(job.payload().get("order_id").asLong());
    return JobResult.done();
  }
}

package example.orders.boot4;

import dev.delayq.DelayQueue;
import dev.delayq.EnqueueResult;
import dev.delayq.JobOptions;
import java.time.Duration;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

@RestController
public class OrderController {
  private final DelayQueue queue;
  private final Orders orders;

  public OrderController(DelayQueue queue, Orders orders) {
    this.queue = queue;
    this.orders = orders;
  }

  /** Opens the order and closes it after {@code delay} (ISO-8601, default PT30M) unless paid. */
  @PostMapping("/orders/{id}/close-later")
  @ResponseStatus(HttpStatus.ACCEPTED)
  public Map<String, Object> closeLater(@PathVariable long id, @RequestParam(defaultValue = "PT30M") Duration delay) {
    orders.open(id);
    EnqueueResult job = queue.delay("order_close", new OrderClose(id, "unpaid"), delay,
        JobOptions.withId("order-close-" + id));   // one close job per order, however often it is posted
    // ACCEPTED; PENDING when one waits already; FINISHED when it ran (the id stays taken for queue.idRetention)
    return Map.of("job", job.id(), "status", job.status());
  }

  @GetMapping("/orders/{id}")
  public Orders.Order order(@PathVariable long id) {
    return orders.get(id);
  }
}

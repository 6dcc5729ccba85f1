package example.orders.boot4;

import dev.delayq.spring.DelayqHandler;
import org.springframework.stereotype.Component;

/**
 * The app's job handlers as annotated methods, run by the in-app worker. The payload is bound to
 * the record by delayq's own Jackson 2 mapper: Boot 4 configures Jackson 3 for the web layer and so
 * offers no Jackson 2 ObjectMapper bean to bind with.
 */
@Component
public class OrderJobs {
  private final Orders orders;

  public OrderJobs(Orders orders) {
    this.orders = orders;
  }

  @DelayqHandler("order_close")
  void close(OrderClose order) {
    orders.closeIfUnpaid(order.orderId(), order.reason());
  }
}

package example.orders.boot4;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.stereotype.Component;

/** The app's orders: open until paid or closed, with why it was closed (in memory, for the example). */
@Component
public class Orders {
  public enum Status { OPEN, PAID, CLOSED }

  /** One order's state; {@code closedBecause} is null until it is closed. */
  public record Order(long id, Status status, String closedBecause) {}

  private final Map<Long, Order> byId = new ConcurrentHashMap<>();

  public void open(long id) {
    byId.put(id, new Order(id, Status.OPEN, null));
  }

  public Order get(long id) {
    return byId.getOrDefault(id, new Order(id, Status.OPEN, null));
  }

  /** Closes the order unless it was paid or closed meanwhile; true when this call closed it. */
  public boolean closeIfUnpaid(long id, String reason) {
    Order closed = new Order(id, Status.CLOSED, reason);
    Order open = byId.get(id);
    if (open == null) {
      return byId.putIfAbsent(id, closed) == null;
    }
    return open.status() == Status.OPEN && byId.replace(id, open, closed);
  }
}

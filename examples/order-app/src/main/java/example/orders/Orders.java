package example.orders;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.stereotype.Component;

/** The app's orders: open until paid or closed (in memory, for the example). */
@Component
public class Orders {
  public enum Status { OPEN, PAID, CLOSED }

  private final Map<Long, Status> byId = new ConcurrentHashMap<>();

  public void open(long id) {
    byId.put(id, Status.OPEN);
  }

  public Status status(long id) {
    return byId.getOrDefault(id, Status.OPEN);
  }

  /** Closes the order unless it was paid meanwhile; true when this call closed it. */
  public boolean closeIfUnpaid(long id) {
    return byId.replace(id, Status.OPEN, Status.CLOSED) || byId.putIfAbsent(id, Status.CLOSED) == null;
  }
}

package example.orders.boot4;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * Run with DELAYQ_REDIS_URL=redis://host:port: the app runs its handler methods and its scheduler,
 * so a Redis is all it needs; its replicas elect one lease holder among their schedulers.
 */
@SpringBootApplication
public class OrderApp {
  public static void main(String[] args) {
    SpringApplication.run(OrderApp.class, args);
  }
}

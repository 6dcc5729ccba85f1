package example.orders;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** Run with DELAYQ_REDIS_URL=redis://host:port (and a delayq scheduler for delays above zero). */
@SpringBootApplication
public class OrderApp {
  public static void main(String[] args) {
    SpringApplication.run(OrderApp.class, args);
  }
}

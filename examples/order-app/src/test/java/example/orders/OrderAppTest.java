package example.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.delayq.redisserver.RedisServer;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.client.TestRestTemplate;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The whole app on a random port against a private redis-server and nothing else: HTTP in, its
 * scheduler and handler run in the app, health and meters out.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@SuppressWarnings({"rawtypes", "unchecked"})
class OrderAppTest {
  private static final RedisServer REDIS = RedisServer.start();

  @DynamicPropertySource
  static void redis(DynamicPropertyRegistry properties) {
    properties.add("delayq.redis.url", REDIS::url);
  }

  @AfterAll
  static void stopRedis() {
    REDIS.close();
  }

  @Autowired
  TestRestTemplate http;

  @Test
  void anOrderPostedForClosingWithADelayIsClosedByTheAppAloneWhenItFallsDue() {
    long postedNanos = System.nanoTime();
    ResponseEntity<Map> posted = http.postForEntity("/orders/1001/close-later?delay=PT2S", null, Map.class);
    assertThat(posted.getStatusCode()).isEqualTo(HttpStatus.ACCEPTED);
    assertThat(posted.getBody()).containsEntry("job", "order-close-1001").containsEntry("status", "ACCEPTED");
    assertThat(http.getForObject("/orders/1001", Map.class).get("status")).isNotEqualTo("CLOSED");

    // no supervisor and no scheduler process: the app's own scheduler moves the job when it falls due
    await().atMost(Duration.ofSeconds(15)).until(() ->
        "CLOSED".equals(http.getForObject("/orders/1001", Map.class).get("status")));
    assertThat(Duration.ofNanos(System.nanoTime() - postedNanos)).isGreaterThanOrEqualTo(Duration.ofMillis(1_900));

    // posted again (a client retrying): its id stays taken, so the order is not closed twice
    Map again = http.postForObject("/orders/1001/close-later?delay=PT0S", null, Map.class);
    assertThat(again).containsEntry("status", "FINISHED");
  }

  @Test
  void actuatorShowsDelayqHealthAndTheAppsMeters() {
    http.postForEntity("/orders/7/close-later?delay=PT0S", null, Map.class);
    await().atMost(Duration.ofSeconds(10)).until(() ->
        "CLOSED".equals(http.getForObject("/orders/7", Map.class).get("status")));

    Map<?, ?> health = http.getForObject("/actuator/health/delayq", Map.class);
    assertThat(health.get("status")).isEqualTo("UP");
    assertThat((Map) health.get("details")).containsEntry("queue", "orders").containsKey("oldestOverdueMs");
    Map<?, ?> runs = http.getForObject("/actuator/metrics/delayq.jobs.run", Map.class);
    assertThat(runs.get("name")).isEqualTo("delayq.jobs.run");
    Map<?, ?> enqueued = http.getForObject("/actuator/metrics/delayq.jobs.enqueued", Map.class);
    assertThat(enqueued.get("name")).isEqualTo("delayq.jobs.enqueued");
  }
}

package example.orders.boot4;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.delayq.redisserver.RedisServer;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.TestRestTemplate;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureTestRestTemplate;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The whole Boot 4 app on a random port against a private redis-server and nothing else: HTTP in,
 * its scheduler and its {@code @DelayqHandler} method run in the app, health and meters out.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@AutoConfigureTestRestTemplate
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

  @Autowired
  ApplicationContext context;

  @Test
  void anOrderPostedForClosingWithADelayIsClosedByTheAppAloneWhenItFallsDue() {
    long postedNanos = System.nanoTime();
    ResponseEntity<Map> posted = http.postForEntity("/orders/1001/close-later?delay=PT2S", null, Map.class);
    assertThat(posted.getStatusCode()).isEqualTo(HttpStatus.ACCEPTED);
    assertThat(posted.getBody()).containsEntry("job", "order-close-1001").containsEntry("status", "ACCEPTED");
    assertThat(http.getForObject("/orders/1001", Map.class).get("status")).isEqualTo("OPEN");

    // no supervisor and no scheduler process: the app's own scheduler moves the job when it falls due,
    // and the handler method gets the record, its reason included
    await().atMost(Duration.ofSeconds(15)).until(() ->
        "CLOSED".equals(http.getForObject("/orders/1001", Map.class).get("status")));
    assertThat(Duration.ofNanos(System.nanoTime() - postedNanos)).isGreaterThanOrEqualTo(Duration.ofMillis(1_900));
    assertThat(http.getForObject("/orders/1001", Map.class)).containsEntry("closedBecause", "unpaid");

    // posted again (a client retrying): its id stays taken, so the order is not closed twice
    Map again = http.postForObject("/orders/1001/close-later?delay=PT0S", null, Map.class);
    assertThat(again).containsEntry("status", "FINISHED");
  }

  @Test
  void theRecordIsBoundByDelayqsOwnJackson2MapperBesideBoot4sJackson3() {
    // Boot 4's web layer has a Jackson 3 mapper and no Jackson 2 ObjectMapper bean, so the handler
    // method binds with delayq's own mapper; the first test shows that the binding works
    assertThat(context.getBeanNamesForType(tools.jackson.databind.json.JsonMapper.class)).isNotEmpty();
    assertThat(context.getBeanNamesForType(com.fasterxml.jackson.databind.ObjectMapper.class)).isEmpty();
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

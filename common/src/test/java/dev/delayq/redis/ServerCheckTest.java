package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.delayq.testing.LogLines;
import dev.delayq.testing.RedisFixture;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.UnifiedJedis;

/** {@link ServerCheck} against the fixture's Redis, with its eviction policy changed for a moment. */
class ServerCheckTest {
  private final UnifiedJedis redis = RedisFixture.get().redis();

  /** Runs {@code body} while the server's maxmemory-policy is {@code policy}, then restores noeviction. */
  private void withPolicy(String policy, Runnable body) {
    redis.configSet("maxmemory-policy", policy);
    try {
      body.run();
    } finally {
      redis.configSet("maxmemory-policy", "noeviction");
    }
    assertEquals("noeviction", ServerCheck.info(redis, "memory").get("maxmemory_policy"));
  }

  @Test
  void noevictionServerPasses() {
    assertDoesNotThrow(() -> ServerCheck.verify(redis, true));
  }

  @Test
  void evictingServerIsRefusedNamingItsPolicyAndNoeviction() {
    withPolicy("allkeys-lru", () -> {
      ServerCheck.UnfitServerException e =
          assertThrows(ServerCheck.UnfitServerException.class, () -> ServerCheck.verify(redis, true));
      assertTrue(e.getMessage().contains("allkeys-lru"), e.getMessage());
      assertTrue(e.getMessage().contains("maxmemory-policy noeviction"), e.getMessage());
      assertTrue(e.getMessage().contains("redis.requireNoeviction: false"), e.getMessage());
    });
  }

  @Test
  void evictingServerIsOnlyWarnedAboutWhenTheOperatorSaysSo() {
    Logger logger = (Logger) LoggerFactory.getLogger(ServerCheck.class);
    ListAppender<ILoggingEvent> events = new ListAppender<>();
    events.start();
    logger.addAppender(events);
    try {
      withPolicy("volatile-ttl", () -> assertDoesNotThrow(() -> ServerCheck.verify(redis, false)));
    } finally {
      logger.detachAppender(events);
    }

    List<ILoggingEvent> lines = LogLines.of(events);
    assertEquals(1, lines.size());
    ILoggingEvent warning = lines.get(0);
    assertEquals(Level.WARN, warning.getLevel());
    assertTrue(warning.getFormattedMessage().contains("volatile-ttl"), warning.getFormattedMessage());
    assertTrue(warning.getFormattedMessage().contains("noeviction"), warning.getFormattedMessage());
  }

  @Test
  void infoReadsASectionAsAMap() {
    assertTrue(ServerCheck.info(redis, "server").get("redis_version").matches("\\d+\\.\\d+.*"));
    assertEquals("noeviction", ServerCheck.info(redis, "memory").get("maxmemory_policy"));
  }

  @ParameterizedTest
  @CsvSource({
      "6.2.0, true", "6.2.14, true", "7.0.15, true", "10.0.0, true", "6.3, true",
      "6.0.20, false", "5.0.7, false", "6, false", "'', false", "unknown, false", "x.y, false"})
  void versionComparisonNeedsSixPointTwo(String version, boolean fit) {
    assertEquals(fit, ServerCheck.atLeast(version, 6, 2), version);
  }
}

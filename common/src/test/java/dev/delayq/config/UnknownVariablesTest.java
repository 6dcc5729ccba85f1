package dev.delayq.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.delayq.testing.LogLines;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** A DELAYQ_* variable that sets nothing is warned about by name, with the nearest known one. */
class UnknownVariablesTest {
  private final List<String> warned = new ArrayList<>();
  private final ConfigLoader loader = new ConfigLoader().warningsTo(warned::add);

  @Test
  void aMisspelledVariableIsNamedWithTheNearestKnownVariableAndItsKey() {
    DelayqConfig c = loader.load(null, Map.of("DELAYQ_WORKER_THREADZ", "4"));

    assertEquals(List.of("DELAYQ_WORKER_THREADZ is not a delayq variable and is ignored; did you mean "
        + "DELAYQ_WORKER_THREADS (worker.threads)?"), warned);
    assertEquals(8, c.worker().threads(), "the default stays in force");
  }

  @Test
  void aTypoInTheEmbeddedPortsVariableNamesTheRightOne() {
    loader.load(null, Map.of("DELAYQ_REDIS_EMBEDED_PORT", "7000"));

    assertEquals(List.of("DELAYQ_REDIS_EMBEDED_PORT is not a delayq variable and is ignored; did you mean "
        + "DELAYQ_REDIS_EMBEDDED_PORT (redis.embeddedPort)?"), warned);
  }

  @Test
  void eachUnknownVariableIsWarnedAboutOnceAJvmHoweverOftenTheConfigIsRead() {
    Map<String, String> env = Map.of("DELAYQ_RETRY_MAX_ATEMPTS", "3");
    loader.load(null, env);
    new ConfigLoader().warningsTo(warned::add).load(null, env);

    assertEquals(1, warned.size(), warned.toString());
  }

  @Test
  void knownVariablesAndThoseDelayqReadsOutsideTheConfigAreNotWarnedAbout() {
    loader.load(null, Map.of("DELAYQ_WORKER_THREADS", "4", "DELAYQ_REDIS_URL", "redis://127.0.0.1:6379",
        "DELAYQ_QUEUE", "orders", "DELAYQ_HOME", "/srv/delayq", "DELAYQ_SUPERVISOR_OPTS", "-Xmx64m",
        "DELAYQ_CLI_OPTS", "-Xmx64m", "DELAYQ_CHILD_NAME", "worker-1", "DELAYQ_SUPERVISOR_PID", "1",
        "DELAYQ_HOST", "h1", "DELAYQ_TEST_REDIS_URL", "redis://x:1"));

    assertEquals(List.of(), warned);
  }

  @Test
  void inAnAppTheWarningIsAWarnLineOfTheConfigLoader() {
    Logger logger = (Logger) LoggerFactory.getLogger(ConfigLoader.class);
    ListAppender<ILoggingEvent> events = new ListAppender<>();
    events.start();
    logger.addAppender(events);
    try {
      new ConfigLoader().load(null, Map.of("DELAYQ_QUEUE_SHARD", "4")); // no sink given: an app's loader
    } finally {
      logger.detachAppender(events);
    }

    List<String> warnings = LogLines.of(events).stream().filter(e -> e.getLevel() == Level.WARN)
        .map(ILoggingEvent::getFormattedMessage).toList();
    assertEquals(List.of("DELAYQ_QUEUE_SHARD is not a delayq variable and is ignored; did you mean "
        + "DELAYQ_QUEUE_SHARDS (queue.shards)?"), warnings);
  }

  @Test
  void editDistanceCountsInsertionsDeletionsAndSubstitutions() {
    assertEquals(0, UnknownVariables.distance("ABC", "ABC"));
    assertEquals(1, UnknownVariables.distance("THREADZ", "THREADS"));
    assertEquals(1, UnknownVariables.distance("EMBEDED", "EMBEDDED"));
    assertEquals(3, UnknownVariables.distance("", "ABC"));
  }
}

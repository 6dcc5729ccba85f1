package dev.delayq.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

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
  void editDistanceCountsInsertionsDeletionsAndSubstitutions() {
    assertEquals(0, UnknownVariables.distance("ABC", "ABC"));
    assertEquals(1, UnknownVariables.distance("THREADZ", "THREADS"));
    assertEquals(1, UnknownVariables.distance("EMBEDED", "EMBEDDED"));
    assertEquals(3, UnknownVariables.distance("", "ABC"));
  }
}

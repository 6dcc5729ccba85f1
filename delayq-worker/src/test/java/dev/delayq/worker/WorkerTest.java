package dev.delayq.worker;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;

import dev.delayq.config.ConfigLoader;
import dev.delayq.config.DelayqConfig;
import dev.delayq.redis.RedisConnection;
import dev.delayq.redis.RedisConnector;
import dev.delayq.testing.RedisFixture;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A worker's exit paths. */
class WorkerTest {
  @Test
  void anExitBeforeAnyConsumerStartedTakesNothingBackAndDoesNotFail() {
    DelayqConfig config = new ConfigLoader().load(null, Map.of(
        "DELAYQ_REDIS_URL", RedisFixture.get().url(), "DELAYQ_QUEUE", RedisFixture.freshQueue()));
    try (RedisConnection redis = RedisConnector.connect(config, "worker-test", 2)) {
      Worker worker = Worker.inApp(config, redis, List.of());
      // the process's unexpected-exit hook runs this when the exit came in the start-up checks
      assertDoesNotThrow(() -> worker.takeBackAtExit("exit in the start-up checks"));
    }
  }
}

package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A job waiting for a handler as inspect, recover and the flow counts see it. */
class AdminHandlerWaitTest {
  private final Keys keys = RedisFixture.freshKeys();
  private final RedisBroker broker = RedisFixture.get().broker(keys);
  private final QueueProbe probe = new QueueProbe(broker);
  private final Admin admin = new Admin(RedisFixture.get().redis(), keys, 3);

  @Test
  void inspectShowsAJobWaitingForAHandlerAndRecoverLeavesItWaiting() {
    assertTrue(broker.handlerWait().leave("c1", probe.seedInFlight("c1", "j1"), QueueProbe.TYPE));

    Admin.JobView job = admin.inspect("j1").orElseThrow();
    assertEquals(Admin.State.WAITING_FOR_HANDLER, job.state());
    assertEquals(1, job.attempt());

    Admin.RecoverReport report = admin.recover();

    assertEquals(0, report.orphansRequeued(), "not an orphan: it has its place");
    assertEquals(Admin.State.WAITING_FOR_HANDLER, admin.inspect("j1").orElseThrow().state());
    assertEquals(Map.of(QueueProbe.TYPE, 1L), admin.flow().waitingForHandler());
    assertEquals(List.of(), new InvariantCheck(RedisFixture.get().redis(), keys).breaches());
  }
}

package dev.delayq.redis;

import static dev.delayq.testing.QueueProbe.delayed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The script resources and {@link Scripts}: SHA-1s, includes, headers, NOSCRIPT recovery. */
class ScriptsTest {
  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final QueueProbe probe = new QueueProbe(broker);

  @ParameterizedTest
  @EnumSource(Script.class)
  void shaComputedLocallyIsTheOneRedisComputes(Script script) {
    assertEquals(script.sha(), RedisFixture.get().redis().scriptLoad(script.source()));
  }

  @ParameterizedTest
  @EnumSource(Script.class)
  void includesAreExpandedAndTheHeaderStatesTheContract(Script script) {
    String source = script.source();
    assertFalse(source.contains("--@include"), script + " still has an include line");
    assertTrue(source.startsWith("--[[ " + script.toString().replace(".lua", "") + ":"), script + " header");
    assertTrue(source.contains("KEYS[1]") && source.contains("Returns") && source.contains("Invariant"),
        script + " header names its keys, returns and invariant");
  }

  @Test
  void brokerCallStillWorksAfterRedisLostItsScripts() {
    RedisFixture.get().redis().scriptFlush();

    assertTrue(broker.enqueue(delayed("j1", "{}", 60_000)).accepted());

    assertEquals(List.of("delayed"), probe.placesOf("j1"));
    assertTrue(RedisFixture.get().redis().scriptExists(Script.ENQUEUE.sha(), Script.ENQUEUE.sha()));
  }

  @Test
  void everyKindOfCallRecoversFromScriptFlush() {
    probe.seedReady("j1");
    RedisFixture.get().redis().scriptFlush();
    assertEquals(0, broker.scheduling().moveDueToReady(10).moved());

    RedisFixture.get().redis().scriptFlush();
    Claimed claimed = broker.claims().claim("c1", 1.0, 30_000).orElseThrow();
    assertEquals("j1", claimed.id());

    RedisFixture.get().redis().scriptFlush();
    assertEquals(Ack.ACKED, broker.acks().releaseClaimed("c1", claimed.delivery()).ack());
    assertEquals(List.of(), probe.placesOf("j1"));
  }

  @Test
  void pipelinedEnqueueAllStillWorksAfterRedisLostItsScripts() {
    RedisFixture.get().redis().scriptFlush();

    List<Enqueued> replies = broker.enqueueAll(List.of(
        delayed("a", "{}", 60_000), delayed("b", "{}", 60_000), delayed("a", "{}", 60_000)));

    assertEquals(List.of(true, true, false), replies.stream().map(Enqueued::accepted).toList());
    assertEquals(List.of("delayed"), probe.placesOf("a"));
    assertEquals(List.of("delayed"), probe.placesOf("b"));
    assertEquals(2, probe.recordCount());
  }
}

package dev.delayq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.delayq.redis.RedisBroker;
import dev.delayq.testing.RedisFixture;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The producer refuses hostile payloads with a reason, and stores nothing for them. */
class HostilePayloadsAtEnqueueTest {
  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final DelayQueue queue = new DelayQueue(broker, 4 << 20, 5);

  private String refusal(Object payload) {
    return assertThrows(IllegalArgumentException.class,
        () -> queue.delay("order_close", payload, Duration.ZERO)).getMessage();
  }

  @Test
  void aClassNameMarkerIsRefusedAsTextAndAsAnObject() {
    String text = "{\"order\":{\"@class\":\"com.sun.rowset.JdbcRowSetImpl\",\"dataSourceName\":\"ldap://x\"}}";
    assertEquals("payload is refused: it has a member \"@class\", a class-name marker of polymorphic deserializers; "
        + "payloads are plain JSON and name no class", refusal(text));
    assertEquals(refusal(text), refusal(Map.of("order", Map.of("@class", "x"))));
    assertEquals(0, RedisFixture.get().redis().hlen(broker.keys().jobs()));
  }

  @Test
  void nestingTenThousandDeepIsRefused() {
    assertEquals("payload is refused: it nests deeper than 1000 levels", refusal("[".repeat(10_000) + "]".repeat(10_000)));
  }

  @Test
  void aMillionElementArrayInsideTheSizeLimitIsRefused() {
    assertEquals("payload is refused: it has more than 1000000 JSON tokens", refusal("[" + "0,".repeat(999_999) + "0]"));
    assertEquals(0, RedisFixture.get().redis().hlen(broker.keys().jobs()));
  }

  @Test
  void ordinaryPayloadsAndLookalikeMembersPass() {
    EnqueueResult r = queue.delay("order_close", "{\"class\":\"A\",\"note\":\"@class\",\"n\":[1,2,3]}", Duration.ZERO);
    assertEquals(EnqueueResult.Status.ACCEPTED, r.status());
    assertEquals(List.of(r.id()), RedisFixture.get().redis().lrange(broker.keys().ready(), 0, -1));
  }
}

package dev.delayq.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.redis.Script;
import dev.delayq.redisserver.RedisServer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/**
 * The slow-log reader of `bench backlog` on a real Redis: the slowest call of an operation is
 * found and named, and the server's own slow-log settings are back after it.
 */
class SlowLogTest {
  @Test
  void theSlowestCallIsFoundAndTheServersSettingsAreBackAfter() throws Exception {
    try (RedisServer server = RedisServer.start(); RedisClient redis = server.client()) {
      redis.configSet("slowlog-log-slower-than", "10000");
      try (SlowLog slow = SlowLog.open(redis, 0)) {
        redis.set("a", "1");
        redis.get("a");
        // a script that spins for a few ms: slower than any SET or GET
        redis.eval("local i = 0 while i < 2000000 do i = i + 1 end return i", 0);
        redis.get("a");
        SlowLog.Slowest s = slow.read();
        assertTrue(s.command().startsWith("eval local i = 0"), "the spinning script is the slowest: " + s);
        assertTrue(s.micros() >= 1000, "it took over a millisecond: " + s);
        assertTrue(s.entries() >= 4, "with a threshold of 0 every call is logged: " + s);

        slow.reset();
        assertEquals(0, slow.read().entries(), "a reset empties the log (the bench's own SLOWLOG calls are left out)");
      }
      assertEquals("10000", redis.configGet("slowlog-log-slower-than").get("slowlog-log-slower-than"));
      assertEquals("128", redis.configGet("slowlog-max-len").get("slowlog-max-len"));
    }
  }

  @Test
  void theSlowestCallOfALongOperationIsKeptWhenMoreCallsThanTheLogHoldsFollowIt() throws Exception {
    try (RedisServer server = RedisServer.start(); RedisClient redis = server.client();
        SlowLog slow = SlowLog.open(redis, 0)) {
      slow.watching(() -> {
        redis.eval("local i = 0 while i < 2000000 do i = i + 1 end return i", 0);
        Thread.sleep(300);
        for (int i = 0; i < 3 * SlowLog.MAX_LEN; i++) {
          redis.get("a");
        }
        return null;
      });
      SlowLog.Slowest s = slow.read();
      assertTrue(s.command().startsWith("eval local i = 0"), "the script is still the slowest: " + s);
      assertTrue(s.entries() > SlowLog.MAX_LEN, "every call was counted: " + s);
    }
  }

  @Test
  void anEvalshaIsNamedByItsScript() {
    List<byte[]> args = List.of(bytes("EVALSHA"), bytes(Script.MOVE_DUE_TO_READY.sha()), bytes("3"));
    assertEquals("evalsha moveDueToReady.lua", SlowLog.describe(args));
    assertEquals("zrange delayq:{q}:delayed", SlowLog.describe(List.of(bytes("ZRANGE"), bytes("delayq:{q}:delayed"),
        bytes("0"), bytes("999"))));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}

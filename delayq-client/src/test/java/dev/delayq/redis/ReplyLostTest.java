package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.testing.RedisFixture;
import dev.delayq.testing.RedisServer;
import dev.delayq.testing.ReplyLosingProxy;
import java.io.IOException;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * {@link RedisErrors#isReplyLost} on the failures real connections meet: a call whose reply was
 * lost after it ran may have applied; one that never reached Redis did not.
 */
class ReplyLostTest {
  @Test
  void aCallWhoseReplyIsLostAfterItRanIsALostReply() throws IOException {
    try (RedisServer redis = RedisServer.start(); ReplyLosingProxy proxy = ReplyLosingProxy.to(redis.port());
        Jedis viaProxy = new Jedis(proxy.url()); Jedis direct = new Jedis("127.0.0.1", redis.port())) {
      proxy.loseNext(ReplyLosingProxy.Loss.REPLY, "INCR", () -> { });

      JedisConnectionException e = assertThrows(JedisConnectionException.class, () -> viaProxy.incr("n"));

      assertTrue(RedisErrors.isReplyLost(e), e.toString());
      assertTrue(RedisErrors.isReplyLost(new JedisConnectionException("shard 0: " + e.getMessage(), e)));
      assertEquals("1", direct.get("n"), "the call ran");
    }
  }

  @Test
  void aCallThatCouldNotConnectIsNoLostReply() throws IOException {
    try (Jedis gone = new Jedis("127.0.0.1", RedisFixture.freePort())) {
      JedisConnectionException e = assertThrows(JedisConnectionException.class, gone::ping);

      assertFalse(RedisErrors.isReplyLost(e), e.toString());
    }
  }
}

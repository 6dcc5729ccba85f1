package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.testing.RedisFixture;
import dev.delayq.redisserver.RedisServer;
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

  /**
   * A script call with redis.replicaAcks (its WAIT rides with it) on a pooled connection whose
   * server went away: the failures Jedis keeps suppress one another in a circle, and telling what
   * the failure was must still end (walking them, it overflowed the stack). The call went out on
   * a connection that then broke, so for all the client knows it may have run: a lost reply.
   */
  @Test
  void aScriptCallWithItsWaitOnAConnectionThatBrokeIsToldApart() throws IOException {
    try (RedisServer redis = RedisServer.start(); RedisServer replica = RedisServer.startReplicaOf(redis)) {
      ReplyLosingProxy proxy = ReplyLosingProxy.to(redis.port());
      RedisConnection pooled = RedisConnector.connect(new dev.delayq.config.ConfigLoader().load(null,
          java.util.Map.of("DELAYQ_REDIS_URL", proxy.url(), "DELAYQ_REDIS_REPLICA_ACKS", "1")), "reply-lost-test", 2);
      try {
        RedisBroker broker = new RedisBroker(pooled, RedisFixture.freshKeys());
        broker.prepare();
        proxy.close();

        RuntimeException e = assertThrows(RuntimeException.class,
            () -> broker.enqueue(dev.delayq.testing.QueueProbe.delayed("j1", "{}", 60_000)));

        assertTrue(RedisErrors.isReplyLost(e), e.toString());
      } finally {
        pooled.close();
      }
    }
  }
}

package dev.delayq.redis;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.delayq.config.ConfigLoader;
import dev.delayq.config.DelayqConfig;
import dev.delayq.process.OutageLog;
import dev.delayq.process.RedisOutage;
import dev.delayq.testing.LogLines;
import dev.delayq.testing.QueueProbe;
import dev.delayq.redisserver.RedisServer;
import dev.delayq.testing.SentinelGroup;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * redis.sentinels and redis.masterName against a master, a replica and three real Sentinels:
 * a connection writes to the master they name and follows SENTINEL FAILOVER in one log line;
 * replicaAcks makes writes wait for the replica; a replica given as a plain url is refused at
 * start; a server that turns replica under a plain url answers READONLY, which is no outage.
 */
class RedisSentinelTest {
  private static SentinelGroup group;

  @BeforeAll
  static void startSentinels() {
    group = SentinelGroup.start();
  }

  @AfterAll
  static void stopSentinels() {
    group.close();
  }

  private static DelayqConfig config(Map<String, String> more) {
    Map<String, String> env = new HashMap<>(more);
    env.put("DELAYQ_REDIS_SENTINELS", group.sentinelList());
    env.put("DELAYQ_REDIS_MASTER_NAME", SentinelGroup.MASTER_NAME);
    return new ConfigLoader().load(null, env);
  }

  @Test
  void connectionFollowsSentinelFailoverToTheNewMasterAndSaysSoOnce() {
    Logger logger = (Logger) LoggerFactory.getLogger(FollowedMaster.class);
    ListAppender<ILoggingEvent> events = new ListAppender<>();
    events.start();
    logger.addAppender(events);
    Keys keys = new Keys("delayq", "sentinel-" + System.nanoTime());
    try (RedisConnection redis = RedisConnector.connect(config(Map.of()), "sentinel-test", 4)) {
      redis.checkServer(true);
      RedisBroker broker = new RedisBroker(redis, keys);
      HostAndPort before = group.master();
      assertEquals(before, redis.master());
      assertTrue(broker.enqueue(QueueProbe.delayed("before", "{}", 60_000)).accepted());
      long epoch = redis.masterEpoch();

      HostAndPort after = group.failover();
      await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
          .until(() -> broker.enqueue(QueueProbe.delayed("after-" + System.nanoTime(), "{}", 60_000))
              .accepted() && redis.master().equals(after));

      assertEquals(epoch + 1, redis.masterEpoch());
      try (RedisClient newMaster = RedisClient.create(after)) {
        assertTrue(newMaster.hexists(keys.jobs(), "before"), "the job from before the failover is on the new master");
      }
      long switches = LogLines.of(events).stream()
          .filter(e -> e.getFormattedMessage().contains("Redis master is now " + after)).count();
      assertEquals(1, switches, LogLines.of(events).toString());
    } finally {
      logger.detachAppender(events);
    }
    group.awaitReplicaInSync();
  }

  @Test
  void replicaAcksWaitForTheReplicaAndAMissingReplicaIsAnErrorToTheProducer() {
    group.awaitReplicaInSync();
    Keys keys = new Keys("delayq", "acks-" + System.nanoTime());
    try (RedisConnection redis = RedisConnector.connect(config(Map.of(
        "DELAYQ_REDIS_REPLICA_ACKS", "1", "DELAYQ_REDIS_REPLICA_ACKS_TIMEOUT", "500ms")), "acks-test", 4)) {
      RedisBroker broker = new RedisBroker(redis, keys);
      assertTrue(broker.enqueue(QueueProbe.delayed("confirmed", "{}", 60_000)).accepted());
      try (RedisClient replica = group.replica().client()) {
        assertTrue(replica.hexists(keys.jobs(), "confirmed"), "WAIT returned only once the replica had it");
      }
    }
    try (RedisConnection redis = RedisConnector.connect(config(Map.of(
        "DELAYQ_REDIS_REPLICA_ACKS", "2", "DELAYQ_REDIS_REPLICA_ACKS_TIMEOUT", "200ms")), "acks-test", 4)) {
      RedisBroker broker = new RedisBroker(redis, keys);
      ReplicaAcksException e = assertThrows(ReplicaAcksException.class,
          () -> broker.enqueue(QueueProbe.delayed("unconfirmed", "{}", 60_000)));
      assertTrue(e.getMessage().contains("only 1 of 2 replica(s) confirmed"), e.getMessage());
    }
  }

  @Test
  void replicaGivenAsAPlainUrlIsRefusedAtStart() {
    group.awaitReplicaInSync();
    DelayqConfig plain = new ConfigLoader().load(null, Map.of("DELAYQ_REDIS_URL", group.replica().url()));
    try (RedisConnection redis = RedisConnector.connect(plain, "replica-test", 2)) {
      ServerCheck.UnfitServerException e = assertThrows(ServerCheck.UnfitServerException.class,
          () -> redis.checkServer(true));
      assertTrue(e.getMessage().contains("is a replica (of 127.0.0.1:" + group.master().getPort() + ")"),
          e.getMessage());
      assertTrue(e.getMessage().contains("redis.sentinels"), e.getMessage());
    }
  }

  @Test
  void serverThatTurnedReplicaAnswersReadOnlyWhichIsAChangeOfMasterNotAnOutage() {
    try (RedisServer a = RedisServer.start(); RedisServer b = RedisServer.start();
        RedisConnection redis = RedisConnector.connect(
            new ConfigLoader().load(null, Map.of("DELAYQ_REDIS_URL", a.url())), "readonly-test", 2)) {
      RedisBroker broker = new RedisBroker(redis, new Keys("delayq", "readonly"));
      assertTrue(broker.enqueue(QueueProbe.delayed("j1", "{}", 60_000)).accepted());
      try (Jedis admin = new Jedis("127.0.0.1", a.port())) {
        admin.replicaof("127.0.0.1", b.port());
      }
      JedisDataException e = assertThrows(JedisDataException.class,
          () -> broker.enqueue(QueueProbe.delayed("j2", "{}", 60_000)));
      assertTrue(RedisErrors.isTopologyChange(e), e.getMessage());

      Logger logger = (Logger) LoggerFactory.getLogger(OutageLog.class);
      ListAppender<ILoggingEvent> events = new ListAppender<>();
      events.start();
      logger.addAppender(events);
      try {
        RedisOutage outage = new RedisOutage("readonly-test");
        assertTrue(outage.failed(e) <= 200, "retried soon: the master moved, it is not down");
        outage.succeeded();
      } finally {
        logger.detachAppender(events);
      }
      assertTrue(LogLines.of(events).isEmpty(), "no 'Redis unreachable' line: " + LogLines.of(events));

      try (Jedis admin = new Jedis("127.0.0.1", a.port())) {
        admin.replicaofNoOne();
      }
      await().atMost(Duration.ofSeconds(5)).ignoreExceptions()
          .until(() -> broker.enqueue(QueueProbe.delayed("j3", "{}", 60_000)).accepted());
    }
  }

  @Test
  void clusterNodeGivenAsAPlainUrlIsRefusedNamingRedisCluster() {
    try (RedisServer node = RedisServer.start("--cluster-enabled", "yes",
            "--cluster-config-file", "nodes-" + System.nanoTime() + ".conf");
        RedisConnection redis = RedisConnector.connect(
            new ConfigLoader().load(null, Map.of("DELAYQ_REDIS_URL", node.url())), "cluster-test", 2)) {
      ServerCheck.UnfitServerException e = assertThrows(ServerCheck.UnfitServerException.class,
          () -> redis.checkServer(true));
      assertTrue(e.getMessage().contains("Redis Cluster node"), e.getMessage());
      assertTrue(e.getMessage().contains("redis.cluster"), e.getMessage());
    }
  }
}

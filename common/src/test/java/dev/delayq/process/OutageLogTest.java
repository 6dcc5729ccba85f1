package dev.delayq.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.delayq.config.ConfigLoader;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisConnection;
import dev.delayq.redis.RedisConnector;
import dev.delayq.redis.ReplicaAcksException;
import dev.delayq.testing.LogLines;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import dev.delayq.redisserver.RedisServer;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * What a process logs of an outage, from the failures real calls meet: a master whose replica is
 * stopped (SIGSTOP) answers, but its WAIT falls short of redis.replicaAcks; a master out of memory
 * answers with an error (OOM); a server that is gone is unreachable. Each is said as what it is,
 * once, and its end once; the line for a server that is gone stays as it was (operators' scripts
 * look for it).
 */
class OutageLogTest {
  private static RedisServer master;
  private static RedisServer replica;

  private RedisConnection redis;
  private RedisBroker broker;
  private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
  private final Logger outageLogger = (Logger) LoggerFactory.getLogger(OutageLog.class);

  @BeforeAll
  static void startMasterAndReplica() {
    master = RedisServer.start();
    replica = RedisServer.startReplicaOf(master);
  }

  private static void replicaCaughtUp() {
    master.awaitReplicasCaughtUp(1, Duration.ofSeconds(10));
  }

  @AfterAll
  static void stopThem() {
    replica.close();
    master.close();
  }

  @BeforeEach
  void connect() {
    replicaCaughtUp();
    redis = RedisConnector.connect(new ConfigLoader().load(null, Map.of("DELAYQ_REDIS_URL", master.url(),
        "DELAYQ_REDIS_REPLICA_ACKS", "1", "DELAYQ_REDIS_REPLICA_ACKS_TIMEOUT", "200ms")), "outage-log-test", 4);
    broker = new RedisBroker(redis, RedisFixture.freshKeys());
    broker.prepare();
    lines.start();
    outageLogger.addAppender(lines);
    outageLogger.setLevel(ch.qos.logback.classic.Level.INFO); // the ends of outages are INFO
  }

  @AfterEach
  void disconnect() throws IOException, InterruptedException {
    outageLogger.detachAppender(lines);
    outageLogger.setLevel(null);
    signalReplica("CONT");
    redis.close();
  }

  private static void signalReplica(String signal) throws IOException, InterruptedException {
    new ProcessBuilder("kill", "-" + signal, Long.toString(replica.pid())).inheritIO().start().waitFor();
  }

  private List<String> logged() {
    return LogLines.of(lines).stream().map(e -> e.getLevel() + " " + e.getFormattedMessage()).toList();
  }

  /** An enqueue while the replica is stopped: it runs on the master, and its WAIT falls short. */
  private ReplicaAcksException shortfall() throws IOException, InterruptedException {
    signalReplica("STOP");
    try {
      return assertThrows(ReplicaAcksException.class,
          () -> broker.enqueue(QueueProbe.delayed("j-" + System.nanoTime(), "{}", 60_000)));
    } finally {
      signalReplica("CONT");
    }
  }

  /** A call to a loopback port nothing listens on: a real connection failure. */
  private static JedisConnectionException unreachable() throws IOException {
    int port = RedisFixture.freePort();
    try (Jedis gone = new Jedis("127.0.0.1", port)) {
      return assertThrows(JedisConnectionException.class, gone::ping);
    }
  }

  @Test
  void tooFewReplicasIsLoggedAsSuchNotAsRedisUnreachable() throws Exception {
    OutageLog outages = new OutageLog("worker-1");
    RedisOutage acks = new RedisOutage("worker-1/acks", outages);
    RedisOutage finisher = new RedisOutage("worker-1/outcomes", outages);

    acks.failed(shortfall());
    finisher.failed(shortfall());
    acks.failed(shortfall());
    acks.succeeded();
    finisher.succeeded();

    List<String> logged = logged();
    assertEquals(2, logged.size(), logged.toString());
    assertEquals("WARN worker-1: Redis answered but too few replicas acknowledged (0 of 1 wanted within "
        + "200 ms after enqueue.lua, redis.replicaAcks; noticed by worker-1/acks); retrying with backoff",
        logged.get(0));
    assertTrue(logged.get(1).matches("INFO worker-1: enough replicas acknowledge again after \\d+\\.\\d s"),
        logged.get(1));
  }

  /** An enqueue while the master may use no memory (maxmemory 1 byte, noeviction): it answers OOM. */
  private JedisDataException outOfMemory() {
    try (Jedis m = new Jedis("127.0.0.1", master.port())) {
      m.configSet("maxmemory-policy", "noeviction");
      m.configSet("maxmemory", "1");
      try {
        return assertThrows(JedisDataException.class,
            () -> broker.enqueue(QueueProbe.delayed("j-" + System.nanoTime(), "{}", 60_000)));
      } finally {
        m.configSet("maxmemory", "0");
      }
    }
  }

  @Test
  void anErrorReplyIsLoggedAsWhatRedisAnsweredNotAsRedisUnreachable() throws Exception {
    OutageLog outages = new OutageLog("worker-1");
    RedisOutage acks = new RedisOutage("worker-1/acks", outages);
    RedisOutage finisher = new RedisOutage("worker-1/outcomes", outages);
    JedisDataException oom = outOfMemory();
    assertTrue(oom.getMessage().startsWith("OOM "), oom.getMessage());

    acks.failed(oom);
    finisher.failed(outOfMemory());
    acks.failed(outOfMemory());
    acks.succeeded();
    finisher.succeeded();

    List<String> logged = logged();
    assertEquals(2, logged.size(), logged.toString());
    assertEquals("WARN worker-1: Redis answered with an error: " + oom.getMessage()
        + " (noticed by worker-1/acks); retrying with backoff", logged.get(0));
    assertTrue(logged.get(1).matches("INFO worker-1: Redis answers without an error again after \\d+\\.\\d s"),
        logged.get(1));
  }

  /** An error reply's text may carry what a caller passed (a script's error): its controls are escaped. */
  @Test
  void anErrorReplysControlCharactersAreEscaped() {
    OutageLog outages = new OutageLog("worker-1");
    JedisDataException e;
    try (Jedis m = new Jedis("127.0.0.1", master.port())) {
      e = assertThrows(JedisDataException.class,
          () -> m.eval("return redis.error_reply('ERR unknown mode ' .. ARGV[1])", 0, "x\u001b[2Jy"));
    }
    assertTrue(e.getMessage().contains("\u001b"), "Redis passed the ESC on");

    new RedisOutage("worker-1/outcomes", outages).failed(e);

    assertEquals(List.of("WARN worker-1: Redis answered with an error: ERR unknown mode x\\u001b[2Jy "
        + "(noticed by worker-1/outcomes); retrying with backoff"), logged());
  }

  @Test
  void redisUnreachableIsLoggedAsBeforeOnceAndItsEndOnce() throws Exception {
    OutageLog outages = new OutageLog("scheduler");
    RedisOutage loop = new RedisOutage("scheduler", outages);
    RedisOutage wakes = new RedisOutage("scheduler/wake-listener", outages);
    JedisConnectionException e = unreachable();

    loop.failed(e);
    wakes.failed(unreachable());
    loop.failed(unreachable());
    wakes.succeeded();
    loop.succeeded();

    List<String> logged = logged();
    assertEquals(List.of("WARN scheduler: Redis unreachable (" + e.getMessage() + "; noticed by scheduler); "
        + "retrying with backoff"), logged.subList(0, 1));
    assertEquals(2, logged.size(), logged.toString());
    assertTrue(logged.get(1).matches("INFO scheduler: Redis back after \\d+\\.\\d s"), logged.get(1));
  }

  /** Replicas short, then the master gone, in one streak of one thread: each said once, each end once. */
  @Test
  void aShortfallThatTurnsIntoAnOutageSaysBothAndBothEnds() throws Exception {
    OutageLog outages = new OutageLog("worker-1");
    RedisOutage acks = new RedisOutage("worker-1/acks", outages);

    acks.failed(shortfall());
    acks.failed(unreachable());
    acks.failed(unreachable());
    acks.succeeded();

    List<String> logged = logged();
    assertEquals(4, logged.size(), logged.toString());
    assertTrue(logged.get(0).startsWith("WARN worker-1: Redis answered but too few replicas acknowledged"), logged.toString());
    assertTrue(logged.get(1).startsWith("WARN worker-1: Redis unreachable ("), logged.toString());
    assertTrue(logged.subList(2, 4).stream().anyMatch(l -> l.startsWith("INFO worker-1: Redis back after")),
        logged.toString());
    assertTrue(logged.subList(2, 4).stream().anyMatch(l -> l.startsWith("INFO worker-1: enough replicas")),
        logged.toString());
  }
}

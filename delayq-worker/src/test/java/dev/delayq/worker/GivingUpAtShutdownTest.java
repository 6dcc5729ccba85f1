package dev.delayq.worker;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.delayq.config.ConfigLoader;
import dev.delayq.process.RedisOutage;
import dev.delayq.process.ShardHealth;
import dev.delayq.redis.Delivery;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisConnection;
import dev.delayq.redis.RedisConnector;
import dev.delayq.testing.LogLines;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import dev.delayq.redisserver.RedisServer;
import dev.delayq.testing.ReplyLosingProxy;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisBusyException;

/**
 * What the finisher and the ack sender say when they give up at shutdown, from the failures real
 * calls meet (redis.replicaAcks 1 on a real master and replica): a stopped replica (SIGSTOP), a
 * master busy with a script that does not end (BUSY), a server gone. Each line says the trouble it met, and what became of the
 * job; a server gone is said as it always was.
 */
class GivingUpAtShutdownTest {
  private static RedisServer master;
  private static RedisServer replica;

  private ReplyLosingProxy proxy;
  private RedisConnection redis;
  private RedisBroker broker;
  private QueueProbe probe;
  private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
  private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);

  @BeforeAll
  static void startMasterAndReplica() {
    master = RedisServer.start();
    replica = RedisServer.startReplicaOf(master);
  }

  @AfterAll
  static void stopThem() {
    replica.close();
    master.close();
  }

  @BeforeEach
  void connect() throws IOException {
    proxy = ReplyLosingProxy.to(master.port()); // closed by a test whose server is to be gone
    redis = RedisConnector.connect(new ConfigLoader().load(null, Map.of("DELAYQ_REDIS_URL", proxy.url(),
        "DELAYQ_REDIS_REPLICA_ACKS", "1", "DELAYQ_REDIS_REPLICA_ACKS_TIMEOUT", "200ms")), "giving-up-test", 4);
    Keys keys = RedisFixture.freshKeys();
    broker = new RedisBroker(redis, keys);
    broker.prepare();
    UnifiedJedis directClient = master.client();
    RedisBroker direct = new RedisBroker(directClient, keys);
    direct.loadScripts();
    probe = new QueueProbe(direct, directClient);
    lines.start();
    root.addAppender(lines);
  }

  @AfterEach
  void disconnect() throws IOException, InterruptedException {
    root.detachAppender(lines);
    signalReplica("CONT");
    redis.close();
    proxy.close();
  }

  private static void signalReplica(String signal) throws IOException, InterruptedException {
    new ProcessBuilder("kill", "-" + signal, Long.toString(replica.pid())).inheritIO().start().waitFor();
  }

  /**
   * Runs {@code call} while the master is busy with a script that does not end (past its
   * busy-reply-threshold every other call answers BUSY), then kills that script.
   */
  private static void whileMasterBusy(ThrowingRunnable call) throws Exception {
    try (Jedis m = new Jedis("127.0.0.1", master.port()); Jedis killer = new Jedis("127.0.0.1", master.port())) {
      m.configSet("busy-reply-threshold", "100");
      Thread busy = new Thread(() -> {
        try (Jedis looping = new Jedis("127.0.0.1", master.port())) {
          looping.eval("while true do end", 0);
        } catch (RuntimeException killed) {
          // SCRIPT KILL ends it with an error reply
        }
      });
      busy.start();
      await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).until(() -> {
        try {
          killer.ping();
          return false;
        } catch (JedisBusyException e) {
          return true;
        }
      });
      try {
        call.run();
      } finally {
        killer.scriptKill();
        busy.join(10_000);
        m.configSet("busy-reply-threshold", "5000");
      }
    }
  }

  private interface ThrowingRunnable {
    void run() throws Exception;
  }

  private List<String> givingUp() {
    return LogLines.of(lines).stream().filter(e -> e.getLevel() == Level.ERROR)
        .map(ILoggingEvent::getFormattedMessage).filter(m -> m.contains("giving up")).toList();
  }

  /** A finisher at shutdown: it gives up at its first failure. */
  private Finisher finisherAtShutdown() {
    return new Finisher(broker, new RedisOutage("test/finisher"), () -> true);
  }

  @Test
  void aRetryGivenUpWhileTooFewReplicasAcknowledgeSaysSoAndThatItIsOnTheMaster() throws Exception {
    Delivery d = probe.seedInFlight("c1", "j1");
    signalReplica("STOP");

    assertFalse(finisherAtShutdown().finish("c1", d, new Outcome.Retry(60_000, "attempt 1/5: boom")));

    assertEquals(List.of("c1: giving up the retry of job j1: too few replicas still acknowledge the writes "
        + "(redis.replicaAcks) at shutdown; it is applied on the master, unconfirmed: should a failover "
        + "lose it, the job is recovered"), givingUp());
    assertEquals(List.of("delayed"), probe.placesOf("j1"), "applied on the master, as said");
  }

  @Test
  void aRetryGivenUpWhileRedisAnswersWithAnErrorSaysTheError() throws Exception {
    Delivery d = probe.seedInFlight("c1", "j1");

    whileMasterBusy(() ->
        assertFalse(finisherAtShutdown().finish("c1", d, new Outcome.Retry(60_000, "attempt 1/5: boom"))));

    List<String> said = givingUp();
    assertEquals(1, said.size(), LogLines.of(lines).toString());
    assertTrue(said.get(0).startsWith("c1: giving up the retry of job j1: Redis still answers with an error: "
        + "BUSY Redis is busy running a script."), said.get(0));
    assertTrue(said.get(0).endsWith(" at shutdown; the job stays in flight and is recovered"), said.get(0));
    assertEquals(List.of("j1"), probe.inFlightIds("c1"), "still in flight, as said");
  }

  @Test
  void aRetryGivenUpWhileRedisIsGoneIsSaidAsBefore() throws Exception {
    Delivery d = probe.seedInFlight("c1", "j1");
    proxy.close();

    assertFalse(finisherAtShutdown().finish("c1", d, new Outcome.Retry(60_000, "attempt 1/5: boom")));

    assertEquals(List.of("c1: giving up the retry of job j1: Redis still unreachable at shutdown; the job "
        + "stays in flight and is recovered"), givingUp());
  }

  @Test
  void acknowledgementsGivenUpWhileTooFewReplicasAcknowledgeSaySoAndThatTheyAreDoneOnTheMaster() throws Exception {
    Delivery d = probe.seedInFlight("c1", "j1");
    AckSender acks = new AckSender(broker, s -> new RedisOutage("test/acks"), () -> true, ShardHealth.unwatched(1),
        Refusals.withoutLease());
    signalReplica("STOP");
    try {
      acks.start(t -> { });
      acks.channel("c1").report(null, d);
      assertTrue(acks.flush(System.nanoTime() + TimeUnit.SECONDS.toNanos(10)), "given up");
    } finally {
      acks.close();
    }

    assertEquals(List.of("giving up 1 acknowledgement(s): too few replicas acknowledge the writes "
        + "(redis.replicaAcks) at shutdown; 1 of those jobs are acknowledged on the master, unconfirmed "
        + "(a failover may lose that, and then they are taken back), the others stay in flight and are "
        + "taken back, uncharged"), givingUp());
    assertEquals(List.of(), probe.inFlightIds("c1"), "acknowledged on the master, as said");
  }

  @Test
  void acknowledgementsGivenUpWhileRedisIsGoneAreSaidAsBefore() throws Exception {
    Delivery d = probe.seedInFlight("c1", "j1");
    AckSender acks = new AckSender(broker, s -> new RedisOutage("test/acks"), () -> true, ShardHealth.unwatched(1),
        Refusals.withoutLease());
    proxy.close();
    try {
      acks.start(t -> { });
      acks.channel("c1").report(null, d);
      assertTrue(acks.flush(System.nanoTime() + TimeUnit.SECONDS.toNanos(10)), "given up");
    } finally {
      acks.close();
    }

    assertEquals(List.of("giving up 1 acknowledgement(s): Redis unreachable at shutdown; those jobs stay in "
        + "flight and are taken back, uncharged"), givingUp());
  }
}

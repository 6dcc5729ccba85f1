package dev.delayq.worker;

import dev.delayq.redis.NewJob;
import dev.delayq.redis.Report;
import dev.delayq.redis.RequeueMode;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.delayq.config.ConfigLoader;
import dev.delayq.job.RetryPolicy;
import dev.delayq.metrics.StatsRecorder;
import dev.delayq.process.RedisOutage;
import dev.delayq.process.ShardHealth;
import dev.delayq.redis.Delivery;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisConnection;
import dev.delayq.redis.RedisConnector;
import dev.delayq.redis.ReplicaAcksException;
import dev.delayq.testing.LogLines;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import dev.delayq.redisserver.RedisServer;
import dev.delayq.worker.testjobs.CountingHandler;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Jedis;

/**
 * With redis.replicaAcks 1 on a real master and replica: a stopped replica (SIGSTOP) makes every
 * WAIT fall short, so an acknowledgement or outcome that ran on the master is sent again; once the
 * replica goes on, the retry finds the delivery gone. That is not a job taken back, and must not
 * WARN as one; a delivery that was taken back still does.
 */
class RefusalsTest {
  private static RedisServer master;
  private static RedisServer replica;

  private RedisConnection redis;
  private RedisBroker broker;
  private QueueProbe probe;
  private Lease lease;
  private AckSender acks;
  private final ListAppender<ILoggingEvent> warnings = new ListAppender<>();
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
  void connect() {
    redis = RedisConnector.connect(new ConfigLoader().load(null, Map.of("DELAYQ_REDIS_URL", master.url(),
        "DELAYQ_REDIS_REPLICA_ACKS", "1", "DELAYQ_REDIS_REPLICA_ACKS_TIMEOUT", "200ms")), "refusals-test", 8);
    Keys keys = RedisFixture.freshKeys();
    broker = new RedisBroker(redis, keys);
    replicaCaughtUp();
    broker.prepare();
    probe = new QueueProbe(broker, redis.client());
    lease = new Lease(60_000_000_000L, 1_000_000_000L);
    lease.renewed(System.nanoTime()); // as under a beating heartbeat
    warnings.start();
    root.addAppender(warnings);
  }

  @AfterEach
  void disconnect() throws IOException, InterruptedException {
    root.detachAppender(warnings);
    signalReplica("CONT");
    if (acks != null) {
      acks.close();
    }
    redis.close();
  }

  private AckSender.Channel sender(String consumer) {
    acks = new AckSender(broker, s -> new RedisOutage("test/acks"), () -> false, ShardHealth.unwatched(1),
        new Refusals(lease));
    acks.start(t -> { });
    return acks.channel(consumer);
  }

  /** A sender whose lease lasts 1 s from now, so a test can let it lapse. */
  private AckSender.Channel senderUnderAShortLease(String consumer) {
    lease = new Lease(1_000_000_000L, 200_000_000L);
    lease.renewed(System.nanoTime());
    return sender(consumer);
  }

  /** The "was refused" lines logged at WARN (the false alarm of the issue, or a true one). */
  private List<String> refusedWarnings() {
    return LogLines.of(warnings).stream().filter(e -> e.getLevel() == Level.WARN)
        .map(ILoggingEvent::getFormattedMessage).filter(m -> m.contains("was refused")).toList();
  }

  /**
   * Reports d's end to the sender with the replica stopped, so the acknowledgement applies on the
   * master and its WAIT falls short, and waits until it has been tried twice.
   */
  private void reportWhileTheReplicaStops(AckSender.Channel channel, Delivery d) throws Exception {
    signalReplica("STOP");
    long before = scriptCallsOnMaster();
    channel.report(null, d);
    await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
        .until(() -> scriptCallsOnMaster() >= before + 2);
  }

  /** j1 was acknowledged, no line says it was taken back, and one WARN says the worker cannot tell by whom it ended. */
  private void assertAcknowledgedOnceAndCannotTellByWhom() throws InterruptedException {
    assertTrue(acks.flush(System.nanoTime() + TimeUnit.SECONDS.toNanos(10)));
    assertNull(probe.rawRecord("j1"));
    assertEquals(List.of(), refusedWarnings(), "no claim that the job was taken back");
    List<String> unsure = LogLines.of(warnings).stream().filter(e -> e.getLevel() == Level.WARN)
        .map(ILoggingEvent::getFormattedMessage).filter(m -> m.contains("cannot tell by whom")).toList();
    assertEquals(1, unsure.size(), LogLines.of(warnings).toString());
    assertTrue(unsure.get(0).contains("the ack of job j1"), unsure.toString());
  }

  private static void replicaCaughtUp() {
    master.awaitReplicasCaughtUp(1, Duration.ofSeconds(10));
  }

  private static void signalReplica(String signal) throws IOException, InterruptedException {
    new ProcessBuilder("kill", "-" + signal, Long.toString(replica.pid())).inheritIO().start().waitFor();
  }

  /** How many script calls the master has run, as its INFO counts them. */
  private static long scriptCallsOnMaster() {
    try (Jedis m = new Jedis("127.0.0.1", master.port())) {
      String stats = m.info("commandstats");
      for (String line : stats.split("\r\n")) {
        if (line.startsWith("cmdstat_evalsha:")) {
          return Long.parseLong(line.substring(line.indexOf("calls=") + 6, line.indexOf(',')));
        }
      }
      return 0;
    }
  }

  /**
   * Stops the replica, runs {@code call}, waits until the master ran it and then ran its retry
   * (so the first try's WAIT fell short and the retry met the delivery gone), and lets the
   * replica go on.
   */
  private void withRetryAfterAShortWait(Runnable call) throws Exception {
    signalReplica("STOP");
    long before = scriptCallsOnMaster();
    call.run();
    await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
        .until(() -> scriptCallsOnMaster() >= before + 2);
    signalReplica("CONT");
  }

  @Test
  void anAcknowledgementWhoseWaitFellShortIsRetriedAndReportedDoneWithoutAWarning() throws Exception {
    Delivery d = probe.seedInFlight("c1", "j1");
    AckSender.Channel channel = sender("c1");

    withRetryAfterAShortWait(() -> channel.report(null, d));

    assertTrue(acks.flush(System.nanoTime() + TimeUnit.SECONDS.toNanos(10)), "sent once the replica confirmed");
    assertNull(probe.rawRecord("j1"));
    assertEquals(List.of(), probe.inFlightElements("c1"));
    assertEquals(List.of(), refusedWarnings(), "the job ran once: no 'taken back' warning");
  }

  @Test
  void anAcknowledgementOfAJobTakenBackIsStillRefusedWithAWarning() throws Exception {
    Delivery d = probe.seedInFlight("c1", "j1");
    broker.consumerRegistry().requeueInFlight("c1", RequeueMode.GONE,
        "worker presumed dead", 3);
    AckSender.Channel channel = sender("c1");

    channel.report(null, d);

    assertTrue(acks.flush(System.nanoTime() + TimeUnit.SECONDS.toNanos(10)));
    assertEquals(List.of("ready"), probe.placesOf("j1"));
    assertEquals(1, refusedWarnings().size(), refusedWarnings().toString());
    assertTrue(refusedWarnings().get(0).contains("the ack of job j1"), refusedWarnings().toString());
  }

  /** Taken back, run and acknowledged by another consumer: no record, as after an echo, yet it ran twice. */
  @Test
  void anAcknowledgementOfAJobTakenBackAndDoneElsewhereIsStillRefusedWithAWarning() throws Exception {
    Delivery d = probe.seedInFlight("c1", "j1");
    broker.consumerRegistry().requeueInFlight("c1", RequeueMode.GONE, "worker presumed dead", 3);
    Delivery again = broker.claims().claimReady("c2", 30_000, 1, null).jobs().get(0).delivery();
    broker.acks().ackAll(List.of(new Report("c2", null, List.of(again))));
    AckSender.Channel channel = sender("c1");

    channel.report(null, d);

    assertTrue(acks.flush(System.nanoTime() + TimeUnit.SECONDS.toNanos(10)));
    assertEquals(1, refusedWarnings().size(), refusedWarnings().toString());
  }

  /**
   * An acknowledgement that landed unconfirmed, then a lease that lapsed before its retry: the
   * consumer's jobs may have been taken back meanwhile, so the refusal WARNs, but as what it is:
   * the job ended, by that first try or elsewhere; not as a job taken back, which it was not.
   */
  @Test
  void aRetryAfterTheLeaseLapsedWarnsThatItCannotTellThoughItsFirstTryLanded() throws Exception {
    Delivery d = probe.seedInFlight("c1", "j1");
    AckSender.Channel channel = senderUnderAShortLease("c1");

    reportWhileTheReplicaStops(channel, d);
    Thread.sleep(1_000); // the lease lapses; a heartbeat renews it, a new lease
    lease.renewed(System.nanoTime());
    signalReplica("CONT");

    assertAcknowledgedOnceAndCannotTellByWhom();
  }

  /**
   * The lease lapsed before the acknowledgement went out (the heartbeats could not be confirmed
   * either, as on a new master without a replica); the acknowledgement applied on the master
   * unconfirmed, and its retry finds the job ended. It ran once: the refusal WARNs that the worker
   * cannot tell by whom it ended, not that it was taken back (CI's ClusterFailoverProcessTest met
   * this after a failover).
   */
  @Test
  void aRetryOfAnAcknowledgementThatAppliedAfterTheLeaseLapsedWarnsThatItCannotTell() throws Exception {
    Delivery d = probe.seedInFlight("c1", "j1");
    AckSender.Channel channel = senderUnderAShortLease("c1");
    Thread.sleep(1_200); // the lease lapses, and nothing renews it

    reportWhileTheReplicaStops(channel, d);
    signalReplica("CONT");

    assertAcknowledgedOnceAndCannotTellByWhom();
  }

  /**
   * The acknowledgement of a batch's last job rides on the consumer's next claim; that claim's WAIT
   * falls short, so the consumer gives its list back, the acknowledgement with it (releaseClaimed):
   * the job, acknowledged by the claim, is reported done.
   */
  @Test
  void anAcknowledgementFoldedIntoAClaimWhoseWaitFellShortIsReportedDoneWhenGivenBack() throws Exception {
    probe.seedReady(new NewJob("j1", QueueProbe.head("count", 5), "{}", 0, false));
    // j2 waits behind it, so that the claim of j1 leaves ready not empty and the next pass claims
    // (with j1's acknowledgement folded in) rather than handing it to the sender and waiting
    probe.seedReady(new NewJob("j2", QueueProbe.head("count", 5), "{}", 0, false));
    sender("c1");
    StatsRecorder stats = new StatsRecorder(broker.keys());
    Watchdog watchdog = new Watchdog(1_000_000_000L, () -> { });
    JobRunner runner = new JobRunner(HandlerRegistry.of(List.of(new CountingHandler())), stats,
        Duration.ofSeconds(5), RetryPolicy.defaults());
    Finisher finisher = new Finisher(broker, new RedisOutage("test/finisher"), () -> false, new Refusals(lease));
    Consumer consumer = new Consumer("c1", 0, new Consumer.Shared(broker, runner, watchdog, lease, acks, finisher,
        null, stats, new FailoverResync(broker, () -> 0)), new Consumer.Settings(0.05, 30_000, 1), () -> false,
        () -> false);
    try {
      consumer.pass(); // claims j1
      consumer.pass(); // runs it: its acknowledgement waits for the next claim
      assertEquals(List.of("j1"), probe.inFlightIds("c1"));

      signalReplica("STOP");
      // the next claim acknowledges j1 on the master, and its WAIT falls short
      assertThrows(ReplicaAcksException.class, consumer::pass);
      signalReplica("CONT");
      retryingPass(consumer); // gives back its list with the acknowledgement, which finds j1 done
    } finally {
      watchdog.close();
    }

    assertNull(probe.rawRecord("j1"));
    assertFalse(probe.inFlightIds("c1").contains("j1"), "j1 ended: nothing of it is in flight");
    assertEquals(List.of(), refusedWarnings(), "the job ran once: no 'taken back' warning");
  }

  /** One pass of {@code consumer}, passed again (after a while) while it fails: the replica catches up. */
  private static void retryingPass(Consumer consumer) throws InterruptedException {
    for (int i = 0; ; i++) {
      try {
        consumer.pass();
        return;
      } catch (RuntimeException e) {
        if (i >= 50) {
          throw e;
        }
        Thread.sleep(100);
      }
    }
  }

  @Test
  void aRetryWhoseWaitFellShortIsRetriedAndReportedAppliedWithoutAWarning() throws Exception {
    Delivery d = probe.seedInFlight("c1", "j1");
    Finisher finisher = new Finisher(broker, new RedisOutage("test/finisher"), () -> false, new Refusals(lease));
    CompletableFuture<Boolean> applied = new CompletableFuture<>();

    withRetryAfterAShortWait(() -> new Thread(() -> {
      try {
        applied.complete(finisher.finish("c1", d, new Outcome.Retry(60_000, "attempt 1/5: boom")));
      } catch (InterruptedException e) {
        applied.completeExceptionally(e);
      }
    }).start());

    assertTrue(applied.get(10, TimeUnit.SECONDS), "the retry is applied, not fenced");
    assertEquals(List.of("delayed"), probe.placesOf("j1"));
    assertEquals(2, probe.record("j1").get("attempt").asInt(), "one attempt charged, by the retry's first try");
    assertEquals(List.of(), refusedWarnings());
  }

  /**
   * The first try of a retry finds the record unreadable and sends the job to dead instead, and
   * its WAIT falls short: the refused retry is that try's echo, and the job's going to dead is
   * said as when the first try's answer comes back in full.
   */
  @Test
  void aRetryWhoseFirstTrySentTheJobToDeadUnconfirmedStillSaysItWentToDead() throws Exception {
    Delivery d = probe.seedInFlight("c1", "j1");
    redis.client().hset(broker.keys().jobs(), "j1", "{\"type\":\"x\" garbage");
    Finisher finisher = new Finisher(broker, new RedisOutage("test/finisher"), () -> false, new Refusals(lease));
    CompletableFuture<Boolean> applied = new CompletableFuture<>();

    withRetryAfterAShortWait(() -> new Thread(() -> {
      try {
        applied.complete(finisher.finish("c1", d, new Outcome.Retry(60_000, "attempt 1/5: boom")));
      } catch (InterruptedException e) {
        applied.completeExceptionally(e);
      }
    }).start());

    assertTrue(applied.get(10, TimeUnit.SECONDS), "the outcome is applied (the job went to dead), not fenced");
    assertEquals(List.of("dead"), probe.placesOf("j1"));
    List<String> dead = LogLines.of(warnings).stream().filter(e -> e.getLevel() == Level.ERROR)
        .map(ILoggingEvent::getFormattedMessage).filter(m -> m.contains("went to dead")).toList();
    assertEquals(1, dead.size(), LogLines.of(warnings).toString());
    assertTrue(dead.get(0).contains("job j1 went to dead instead of its retry"), dead.toString());
    assertEquals(List.of(), refusedWarnings());
  }

  @Test
  void aRetryOfAJobTakenBackIsStillRefusedWithAWarning() throws Exception {
    Delivery d = probe.seedInFlight("c1", "j1");
    broker.consumerRegistry().requeueInFlight("c1", RequeueMode.GONE, "worker presumed dead", 3);
    Finisher finisher = new Finisher(broker, new RedisOutage("test/finisher"), () -> false, new Refusals(lease));

    assertEquals(false, finisher.finish("c1", d, new Outcome.Retry(60_000, "attempt 1/5: boom")));

    assertEquals(List.of("ready"), probe.placesOf("j1"));
    assertEquals(1, refusedWarnings().size(), refusedWarnings().toString());
  }
}

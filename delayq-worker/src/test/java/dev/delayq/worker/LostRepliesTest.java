package dev.delayq.worker;

import dev.delayq.redis.Ack;
import dev.delayq.redis.NewJob;
import dev.delayq.redis.RequeueMode;
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
import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;
import dev.delayq.job.RetryPolicy;
import dev.delayq.metrics.StatsRecorder;
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
import dev.delayq.worker.testjobs.CountingHandler;
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
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * The worker reaches a real Redis through a proxy that loses one call on the way: the script
 * runs and its reply never comes back (or the request never arrives), and the worker's
 * connection breaks after it sent the call. The worker sends the call again; when the first try
 * had applied, the retry is refused as fenced, and that echo of its own try must not WARN as a
 * job taken back. A job that was really taken back meanwhile still WARNs.
 */
class LostRepliesTest {
  private static RedisServer redisServer;

  private ReplyLosingProxy proxy;
  private RedisConnection workerRedis;
  /** The worker's gateway, through the proxy. */
  private RedisBroker broker;
  /** The same queue straight on Redis: seeding, take-backs, and what a ledger reads. */
  private RedisBroker direct;
  private QueueProbe probe;
  private Lease lease;
  private AckSender acks;
  private final ListAppender<ILoggingEvent> events = new ListAppender<>();
  private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
  private final Logger refusalsLog = (Logger) LoggerFactory.getLogger(Refusals.class);

  @BeforeAll
  static void startRedis() {
    redisServer = RedisServer.start();
  }

  @AfterAll
  static void stopRedis() {
    redisServer.close();
  }

  @BeforeEach
  void connect() throws IOException {
    proxy = ReplyLosingProxy.to(redisServer.port());
    workerRedis = RedisConnector.connect(new ConfigLoader().load(null, Map.of("DELAYQ_REDIS_URL", proxy.url())),
        "lost-replies-test", 8);
    Keys keys = RedisFixture.freshKeys();
    broker = new RedisBroker(workerRedis, keys);
    broker.prepare();
    UnifiedJedis directClient = redisServer.client();
    direct = new RedisBroker(directClient, keys);
    direct.loadScripts();
    probe = new QueueProbe(direct, directClient);
    lease = new Lease(60_000_000_000L, 1_000_000_000L);
    lease.renewed(System.nanoTime()); // as under a beating heartbeat
    CountingHandler.clear();
    events.start();
    root.addAppender(events);
    refusalsLog.setLevel(Level.DEBUG); // the echo's own line is read too
  }

  @AfterEach
  void disconnect() throws IOException {
    root.detachAppender(events);
    refusalsLog.setLevel(null);
    if (acks != null) {
      acks.close();
    }
    workerRedis.close();
    proxy.close();
  }

  private AckSender.Channel sender(String consumer) {
    acks = new AckSender(broker, s -> new RedisOutage("test/acks"), () -> false, ShardHealth.unwatched(1),
        new Refusals(lease));
    acks.start(t -> { });
    return acks.channel(consumer);
  }

  /** The "was refused" lines logged at WARN (a false alarm, or a true one). */
  private List<String> refusedWarnings() {
    return linesAt(Level.WARN, "was refused");
  }

  /**
   * The lease lapses and a heartbeat renews it, as when a job runs longer than the heartbeat's TTL
   * while the heartbeat cannot get through (a new epoch: recovery may have taken the jobs back).
   */
  private void leaseLapsesAndIsRenewed() {
    int before = lease.epoch();
    lease.renewed(System.nanoTime() + TimeUnit.SECONDS.toNanos(120)); // two minutes after the last
    assertTrue(lease.epoch() != before && lease.holds(System.nanoTime()), "a new lease, which holds");
  }

  /** The job is taken back from c1 (its heartbeat expired) and claimed by c2: c2's delivery. */
  private Delivery takenBackAndClaimedByC2() {
    direct.consumerRegistry().requeueInFlight("c1", RequeueMode.GONE, "heartbeat expired", 3);
    return direct.claims().claimReady("c2", 30_000, 1, null).jobs().get(0).delivery();
  }

  private List<String> linesAt(Level level, String holding) {
    return LogLines.of(events).stream().filter(e -> e.getLevel() == level)
        .map(ILoggingEvent::getFormattedMessage).filter(m -> m.contains(holding)).toList();
  }

  @Test
  void anAcknowledgementWhoseReplyWasLostIsRetriedAndReportedDoneWithoutAWarning() throws Exception {
    Delivery d = probe.seedInFlight("c1", "j1");
    AckSender.Channel channel = sender("c1");
    proxy.loseNext(ReplyLosingProxy.Loss.REPLY, "EVALSHA", () -> { });

    channel.report(null, d, Refusals.NOT_LANDED, lease.epoch());

    assertTrue(acks.flush(System.nanoTime() + TimeUnit.SECONDS.toNanos(10)), "sent once the retry answered");
    assertEquals(1, proxy.lost(), "the first try's reply was lost");
    assertNull(probe.rawRecord("j1"));
    assertEquals(List.of(), probe.inFlightElements("c1"));
    assertEquals(List.of(), refusedWarnings(), "acknowledged once, by the first try: no 'taken back' warning");
    assertEquals(1, linesAt(Level.DEBUG, "its retry found it done").size(), LogLines.of(events).toString());
  }

  /**
   * The request was lost before it reached Redis, and meanwhile the job was taken back and claimed
   * by another consumer: the retry is refused with the record alive, a real take-back that WARNs.
   */
  @Test
  void anAcknowledgementLostOnTheWayToAJobTakenBackIsStillRefusedWithAWarning() throws Exception {
    Delivery d = probe.seedInFlight("c1", "j1");
    AckSender.Channel channel = sender("c1");
    proxy.loseNext(ReplyLosingProxy.Loss.REQUEST, "EVALSHA", () -> {
      direct.consumerRegistry().requeueInFlight("c1", RequeueMode.GONE, "worker presumed dead", 3);
      direct.claims().claimReady("c2", 30_000, 1, null);
    });

    channel.report(null, d, Refusals.NOT_LANDED, lease.epoch());

    assertTrue(acks.flush(System.nanoTime() + TimeUnit.SECONDS.toNanos(10)));
    assertEquals(1, proxy.lost());
    assertEquals(List.of("j1"), probe.inFlightIds("c2"), "the job is c2's, untouched by c1's acknowledgement");
    assertEquals(1, refusedWarnings().size(), LogLines.of(events).toString());
    assertTrue(refusedWarnings().get(0).contains("the ack of job j1"), refusedWarnings().toString());
  }

  @Test
  void aRetryWhoseReplyWasLostIsRetriedAndReportedAppliedWithoutAWarning() throws Exception {
    Delivery d = probe.seedInFlight("c1", "j1");
    Finisher finisher = new Finisher(broker, new RedisOutage("test/finisher"), () -> false, new Refusals(lease));
    proxy.loseNext(ReplyLosingProxy.Loss.REPLY, "EVALSHA", () -> { });

    assertTrue(finisher.finish("c1", d, new Outcome.Retry(60_000, "attempt 1/5: boom"), lease.epoch()),
        "the retry is applied, not fenced");

    assertEquals(1, proxy.lost());
    assertEquals(List.of("delayed"), probe.placesOf("j1"));
    assertEquals(2, probe.record("j1").get("attempt").asInt(), "one attempt charged, by the first try");
    assertEquals(List.of(), refusedWarnings());
  }

  /**
   * A consumer's acknowledgement rides on its next claim, whose reply is lost after it ran: the
   * consumer gives back its list with the acknowledgement, which finds the job done. Each job runs
   * once, and nothing WARNs.
   */
  @Test
  void anAcknowledgementFoldedIntoAClaimWhoseReplyWasLostIsReportedDoneWhenGivenBack() throws Exception {
    for (String id : List.of("j1", "j2")) {
      probe.seedReady(new NewJob(id, QueueProbe.head("count", 5), "{}", 0, false));
    }
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
      proxy.loseNext(ReplyLosingProxy.Loss.REPLY, "EVALSHA", () -> { });
      // the next claim acknowledges j1 and claims j2; its reply is lost
      assertThrows(JedisConnectionException.class, consumer::pass);
      assertEquals(1, proxy.lost());
      for (int i = 0; i < 20 && !(probe.recordCount() == 0 && CountingHandler.runs().size() >= 2); i++) {
        consumer.pass(); // gives back its list (j1's acknowledgement with it), claims and runs j2
      }
      assertTrue(acks.flush(System.nanoTime() + TimeUnit.SECONDS.toNanos(10)));
    } finally {
      watchdog.close();
    }

    assertEquals(List.of("j1#1", "j2#1"), CountingHandler.runs(), "each job ran once");
    assertEquals(0, probe.recordCount(), "both ended");
    assertFalse(probe.inFlightIds("c1").contains("j1"));
    assertEquals(List.of(), refusedWarnings(), "each ran once: no 'taken back' warning");
  }

  /**
   * The job was c1's under a lease that lapsed while it ran; meanwhile it was taken back and
   * claimed by c2, and the lease was renewed before c1's retry went out. That try was fenced and
   * its reply lost; the retry is refused as well, which is the take-back, not an echo of the first
   * try: it WARNs, and nothing is applied (on the lease the try went out under, it was taken for
   * an echo: DEBUG, and finish said applied).
   */
  @Test
  void aRetryWhoseReplyWasLostAfterTheLeaseLapsedAndTheJobWasTakenBackWarns() throws Exception {
    Delivery d = probe.seedInFlight("c1", "j1");
    int ownedUnder = lease.epoch();
    leaseLapsesAndIsRenewed();
    takenBackAndClaimedByC2();
    Finisher finisher = new Finisher(broker, new RedisOutage("test/finisher"), () -> false, new Refusals(lease));
    proxy.loseNext(ReplyLosingProxy.Loss.REPLY, "EVALSHA", () -> { });

    assertFalse(finisher.finish("c1", d, new Outcome.Retry(60_000, "attempt 1/5: boom"), ownedUnder),
        "fenced: the job is c2's");

    assertEquals(1, proxy.lost());
    assertEquals(List.of("j1"), probe.inFlightIds("c2"), "the job is c2's, untouched by c1's retry");
    assertEquals(1, refusedWarnings().size(), LogLines.of(events).toString());
    assertTrue(refusedWarnings().get(0).contains("the retry of job j1"), refusedWarnings().toString());
    assertEquals(List.of(), linesAt(Level.DEBUG, "its retry found it done"));
  }

  /**
   * As for the retry: c1's acknowledgement of a job that was taken back in a lapse of its lease,
   * run and acknowledged by c2 (its record gone), goes out under the renewed lease and its reply is
   * lost. The retry is refused with the record gone, and WARNs: the job may have run twice (it did).
   * c1 cannot tell that from its first try having acknowledged it, and says so rather than call it
   * an echo (DEBUG) or a job surely taken back.
   */
  @Test
  void anAcknowledgementWhoseReplyWasLostAfterTheLeaseLapsedAndTheJobRanElsewhereWarns() throws Exception {
    Delivery d = probe.seedInFlight("c1", "j1");
    int ownedUnder = lease.epoch();
    leaseLapsesAndIsRenewed();
    Delivery c2s = takenBackAndClaimedByC2();
    assertEquals(Ack.ACKED, direct.acks().releaseClaimed("c2", c2s).ack(), "c2 ran it and acknowledged it");
    AckSender.Channel channel = sender("c1");
    proxy.loseNext(ReplyLosingProxy.Loss.REPLY, "EVALSHA", () -> { });

    channel.report(null, d, Refusals.NOT_LANDED, ownedUnder);

    assertTrue(acks.flush(System.nanoTime() + TimeUnit.SECONDS.toNanos(10)));
    assertEquals(1, proxy.lost());
    List<String> warned = linesAt(Level.WARN, "the ack of job j1");
    assertEquals(1, warned.size(), LogLines.of(events).toString());
    assertTrue(warned.get(0).contains("cannot tell by whom") && warned.get(0).contains("ran again elsewhere"), warned.toString());
    assertEquals(List.of(), linesAt(Level.DEBUG, "its retry found it done"));
  }

  /** A consumer of this test's queue that runs {@code handler}'s jobs, one per claim. */
  private Consumer consumer(JobHandler handler, Watchdog watchdog) {
    StatsRecorder stats = new StatsRecorder(broker.keys());
    JobRunner runner = new JobRunner(HandlerRegistry.of(List.of(handler)), stats,
        Duration.ofSeconds(5), RetryPolicy.defaults());
    Finisher finisher = new Finisher(broker, new RedisOutage("test/finisher"), () -> false, new Refusals(lease));
    return new Consumer("c1", 0, new Consumer.Shared(broker, runner, watchdog, lease, acks, finisher,
        null, stats, new FailoverResync(broker, () -> 0)), new Consumer.Settings(0.05, 30_000, 1), () -> false,
        () -> false);
  }

  /** A handler of type "flaky" that fails each job after {@code meanwhile} ran (its outcome: a retry). */
  private static JobHandler failingAfter(Runnable meanwhile) {
    return new JobHandler() {
      @Override
      public String type() {
        return "flaky";
      }

      @Override
      public JobResult handle(JobContext context) {
        meanwhile.run();
        throw new IllegalStateException("boom");
      }
    };
  }

  /**
   * A consumer's retry whose reply is lost, the lease holding since the claim: the consumer passes
   * the lease of its claim to the retry, whose refused second try is the first's echo (no WARN).
   */
  @Test
  void aConsumersRetryWhoseReplyWasLostUnderTheLeaseOfItsClaimIsTheEchoOfItsFirstTry() throws Exception {
    probe.seedReady(new NewJob("j1", QueueProbe.head("flaky", 5), "{}", 0, false));
    sender("c1");
    Watchdog watchdog = new Watchdog(1_000_000_000L, () -> { });
    try {
      Consumer consumer = consumer(failingAfter(
          () -> proxy.loseNext(ReplyLosingProxy.Loss.REPLY, "EVALSHA", () -> { })), watchdog);
      consumer.pass(); // claims j1
      consumer.pass(); // runs it; its retry's first try loses its reply, the second is refused
    } finally {
      watchdog.close();
    }

    assertEquals(1, proxy.lost());
    assertEquals(List.of("delayed"), probe.placesOf("j1"));
    assertEquals(2, probe.record("j1").get("attempt").asInt(), "one attempt charged, by the first try");
    assertEquals(List.of(), refusedWarnings());
    assertEquals(1, linesAt(Level.DEBUG, "its retry found it done").size(), LogLines.of(events).toString());
  }

  /**
   * As above, but while the handler ran the lease lapsed, the job was taken back and claimed by c2,
   * and the lease was renewed: the consumer's retry is fenced (its reply lost), and its refused
   * second try WARNs as the take-back it is.
   */
  @Test
  void aConsumersRetryWhoseReplyWasLostAfterItsLeaseLapsedWhileTheJobRanWarns() throws Exception {
    probe.seedReady(new NewJob("j1", QueueProbe.head("flaky", 5), "{}", 0, false));
    sender("c1");
    Watchdog watchdog = new Watchdog(1_000_000_000L, () -> { });
    try {
      Consumer consumer = consumer(failingAfter(() -> {
        leaseLapsesAndIsRenewed();
        takenBackAndClaimedByC2();
        proxy.loseNext(ReplyLosingProxy.Loss.REPLY, "EVALSHA", () -> { });
      }), watchdog);
      consumer.pass(); // claims j1
      consumer.pass(); // runs it; its retry is fenced, the reply of the first try lost
    } finally {
      watchdog.close();
    }

    assertEquals(1, proxy.lost());
    assertEquals(List.of("j1"), probe.inFlightIds("c2"), "the job is c2's, untouched by c1's retry");
    assertEquals(1, refusedWarnings().size(), LogLines.of(events).toString());
    assertTrue(refusedWarnings().get(0).contains("the retry of job j1"), refusedWarnings().toString());
  }
}

package example.orders;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.DelayQueue;
import dev.delayq.JobRequest;
import dev.delayq.config.ConfigLoader;
import dev.delayq.config.DelayqConfig;
import dev.delayq.redis.Delivery;
import dev.delayq.redis.Inspector;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisConnection;
import dev.delayq.redis.RedisConnector;
import dev.delayq.redisserver.RedisServer;
import example.orders.RunLedger.Run;
import example.orders.ledger.LedgerHandler;
import example.orders.ledger.LedgerHandler.LedgerJob;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Two instances of the example app, two JVMs on one private redis-server, as two replicas of a
 * deployment with nothing but Redis: both run the worker and the scheduler, one holds the lease.
 * Runs are counted in a ledger file the apps' test handler appends to. The instances are shared
 * by the tests (a JVM start is the dear part): each test first starts whichever is not running.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TwoInstancesProcessTest {
  private static final Duration JVM_START = Duration.ofSeconds(90);   // a Spring start on a loaded 2-core machine
  private static final Duration JVM_STOP = Duration.ofSeconds(60);    // the worker's drain included
  /**
   * A killed app's deliveries are taken back 6 s after its last heartbeat instead of the default
   * 30 s, to keep the test short; 16 consumer threads, so that jobs of 100 ms keep up with 100 jobs
   * a second in one app and several are running when the other dies.
   */
  private static final List<String> APP_ARGS = List.of("--delayq.worker.heartbeat-interval=1s",
      "--delayq.worker.heartbeat-ttl=6s", "--delayq.worker.threads=16");

  private static RedisServer redis;
  private static RunLedger ledger;
  private static DelayqConfig config;
  private static RedisConnection connection;
  private static Keys keys;
  private static Inspector inspector;
  private static DelayQueue queue;
  private static OrderAppProcess a;
  private static OrderAppProcess b;

  @BeforeAll
  static void startRedisAndBothApps() throws Exception {
    redis = RedisServer.start();
    Path dir = Files.createDirectories(Path.of("target", "two-apps"));
    ledger = new RunLedger(Files.createTempFile(dir, "ledger-", ".txt"));
    // the app's queue ("orders", application.properties) with the engine's defaults, as the apps have them
    config = new ConfigLoader().load(null, Map.of("DELAYQ_REDIS_URL", redis.url(), "DELAYQ_QUEUE", "orders"));
    connection = RedisConnector.connect(config, "two-apps-test", 4);
    keys = Keys.of(config);
    inspector = new RedisBroker(connection, keys).inspector();
    queue = DelayQueue.connect(config);
    a = new OrderAppProcess("app-a", redis.url(), ledger.file(), APP_ARGS);
    b = new OrderAppProcess("app-b", redis.url(), ledger.file(), APP_ARGS);
    ensureBothUp();
  }

  @AfterAll
  static void stopAll() throws Exception {
    for (AutoCloseable c : new AutoCloseable[] {a, b, queue, connection, redis}) {
      if (c != null) {
        c.close();
      }
    }
  }

  /**
   * A rolling deploy under load: A stopped (SIGTERM) and started again, then B, while a job falls
   * due every 40 ms. Each stop gives the lease back at once and drains the worker, so no job is
   * late by more than a second, none is lost and none runs twice.
   */
  @Test
  @Order(1)
  void aRollingRestartOfBothInstancesUnderLoadKeepsEveryJobOnTimeOnce() throws Exception {
    ensureBothUp();
    Set<String> ids = ConcurrentHashMap.newKeySet();
    AtomicBoolean producing = new AtomicBoolean(true);
    Thread producer = new Thread(() -> {
      while (producing.get()) {
        long due = System.currentTimeMillis() + 1_500;
        JobRequest job = JobRequest.at(LedgerHandler.TYPE, new LedgerJob(due, 10), Instant.ofEpochMilli(due));
        ids.add(queue.enqueue(job).id());
        sleep(40);
      }
    }, "rolling-restart-producer");
    producer.start();
    List<String> holders = new ArrayList<>(List.of(leaseHolder()));
    List<Long> handOvers = new ArrayList<>();
    try {
      sleep(2_000);
      for (OrderAppProcess app : List.of(a, b)) {
        long stoppingAtMs = System.currentTimeMillis();
        app.stopGracefully(JVM_STOP);
        String holder = awaitLeaseHolderOtherThan(app.pid());
        handOvers.add(System.currentTimeMillis() - stoppingAtMs);
        holders.add(holder);
        app.start();
        app.awaitUp(JVM_START);
        holders.add(leaseHolder());
      }
      sleep(2_000);
    } finally {
      producing.set(false);
      producer.join();
    }
    Map<String, List<Run>> runs = awaitAllRun(ids);

    List<Long> lateness = new ArrayList<>();
    runs.values().forEach(r -> lateness.add(r.get(0).latenessMs()));
    System.out.println("[two-apps] rolling restart: " + ids.size() + " jobs, lateness "
        + RunLedger.percentiles(lateness) + "; lease holders along the way " + holders
        + "; from SIGTERM to the other holding the lease (the JVM's whole stop included), ms: " + handOvers);
    assertThat(ids).as("jobs fell due all along the restarts (one every 40 ms)").hasSizeGreaterThan(200);
    assertThat(runs.keySet()).as("lost 0").containsExactlyInAnyOrderElementsOf(ids);
    runs.forEach((id, r) -> assertThat(r).as(id + " ran once, at its first attempt").hasSize(1)
        .allMatch(run -> run.attempt() == 1));
    assertThat(lateness.stream().mapToLong(Long::longValue).max().orElse(0)).as("the latest job's lateness, ms")
        .isLessThanOrEqualTo(1_000);
  }

  /**
   * 2,000 jobs due over 20 s; the lease holder's JVM is killed (-9) 10 s in. The other instance,
   * a hot standby, forwards each due job itself once it is standbyGrace overdue, so the jobs due
   * while the dead holder's lease runs out are late by about standbyGrace, not by leaseTtl; the
   * lease moves to it once it lapses. The jobs the killed app held (in its consumers' in-flight
   * lists) are taken back once its heartbeats expire and run in the other, those it had started a
   * second time; no other job runs twice, none is lost.
   */
  @Test
  @Order(2)
  void killingTheLeaseHoldersJvmMidLoadLosesNothingAndTheStandbyKeepsJobsOnTime() throws Exception {
    ensureBothUp();
    int jobs = 2_000;
    long firstDue = System.currentTimeMillis() + 3_000;
    Set<String> ids = new HashSet<>();
    List<JobRequest> batch = new ArrayList<>();
    for (int i = 0; i < jobs; i++) {
      long due = firstDue + i * 10L;
      batch.add(JobRequest.at(LedgerHandler.TYPE, new LedgerJob(due, 100), Instant.ofEpochMilli(due)));
      if (batch.size() == 200) {
        queue.enqueueAll(batch).forEach(r -> ids.add(r.id()));
        batch.clear();
      }
    }
    sleep(firstDue + 10_000 - System.currentTimeMillis());

    String holderBefore = leaseHolder();
    OrderAppProcess killed = holderBefore.endsWith(":" + a.pid()) ? a : b;
    OrderAppProcess survivor = killed == a ? b : a;
    assertThat(holderBefore).as("the lease holder is one of the apps").endsWith(":" + killed.pid());
    long killedAtMs = System.currentTimeMillis();
    killed.kill();
    Set<String> inKilledApp = heldBy(killed.pid());
    String holderAfter = holderBefore;
    while ((holderAfter == null || holderAfter.equals(holderBefore))
        && System.currentTimeMillis() - killedAtMs < 40_000) {
      sleep(20);
      holderAfter = leaseHolder();
    }
    long leaseMovedMs = System.currentTimeMillis() - killedAtMs;
    assertThat(holderAfter).as("the lease moved to the other app").endsWith(":" + survivor.pid());

    Map<String, List<Run>> runs = awaitAllRun(ids);
    assertThat(runs.keySet()).as("lost 0").containsExactlyInAnyOrderElementsOf(ids);
    // every job run twice or at a later attempt was one the killed app held (started or only claimed)
    runs.forEach((id, r) -> {
      if (r.size() > 1 || r.get(0).attempt() > 1) {
        assertThat(inKilledApp).as(id + " ran " + r + ": only a job the killed app held may").contains(id);
      }
    });
    int ranTwice = 0;
    for (Map.Entry<String, List<Run>> e : runs.entrySet()) {
      List<Run> r = e.getValue();
      if (r.size() == 1) {
        continue;
      }
      ranTwice++;
      assertThat(r).as(e.getKey() + " ran twice: only a job started in the killed app may, once more in the other")
          .hasSize(2);
      assertThat(r.get(0).pid()).as(e.getKey() + ": its first run was in the killed app").isEqualTo(killed.pid());
      assertThat(r.get(1).pid()).as(e.getKey() + ": its second run in the other").isEqualTo(survivor.pid());
    }

    Duration grace = config.scheduler().standbyGrace();
    Duration poll = config.worker().pollTimeout();
    List<Long> all = new ArrayList<>();
    List<Long> takeOver = new ArrayList<>();
    List<Long> takenBack = new ArrayList<>();
    runs.forEach((id, r) -> {
      Run last = r.get(r.size() - 1);
      if (inKilledApp.contains(id)) {
        takenBack.add(last.latenessMs());
        return;
      }
      all.add(last.latenessMs());
      if (last.dueMs() >= killedAtMs && last.dueMs() < killedAtMs + 5_000) {
        takeOver.add(last.latenessMs());
      }
    });
    System.out.println("[two-apps] kill -9 of the lease holder: lease moved " + leaseMovedMs + " ms after the kill ("
        + holderBefore + " -> " + holderAfter + "); jobs due in the 5 s after the kill: "
        + RunLedger.percentiles(takeOver) + "; all jobs not in the killed app: " + RunLedger.percentiles(all)
        + "; delivered to the killed app: " + inKilledApp.size() + " (" + ranTwice
        + " ran twice), taken back with lateness " + RunLedger.percentiles(takenBack)
        + "; standbyGrace " + grace.toMillis() + " ms, leaseTtl " + config.scheduler().leaseTtl().toMillis()
        + " ms, worker pollTimeout " + poll.toMillis() + " ms");

    assertThat(takeOver).as("jobs fell due while the standby took over").hasSizeGreaterThan(100);
    // about standbyGrace in fact; bounded by standbyGrace plus a consumer's poll, plus a second for a loaded
    // machine: still well under leaseTtl, what they would wait without the hot standby
    long bound = grace.plus(poll).toMillis() + 1_000;
    assertThat(all.stream().mapToLong(Long::longValue).max().orElse(0))
        .as("the latest job's lateness (ms), but for those delivered to the killed app").isLessThanOrEqualTo(bound);
    assertThat(leaseMovedMs).as("the lease moved within leaseTtl and a renewal period of the kill, ms")
        .isLessThanOrEqualTo(config.scheduler().leaseTtl().toMillis() * 4 / 3 + 3_000);
  }

  private static void ensureBothUp() throws InterruptedException {
    List<OrderAppProcess> starting = new ArrayList<>();
    for (OrderAppProcess app : List.of(a, b)) {
      if (!app.isAlive()) {
        app.start();
        starting.add(app);
      }
    }
    for (OrderAppProcess app : starting) {
      app.awaitUp(JVM_START);
    }
    long deadline = System.currentTimeMillis() + 30_000;
    while (leaseHolder() == null && System.currentTimeMillis() < deadline) {
      sleep(100);
    }
    assertThat(leaseHolder()).as("one app holds the lease").isNotNull();
  }

  /** Waits until every job of {@code ids} ran and the queue holds no job (none waits to be taken back). */
  private static Map<String, List<Run>> awaitAllRun(Set<String> ids) {
    long deadline = System.currentTimeMillis() + 60_000;
    while (System.currentTimeMillis() < deadline) {
      if (inspector.depths().records() == 0 && ledger.runsOf(ids).size() == ids.size()) {
        break;
      }
      sleep(200);
    }
    return ledger.runsOf(ids);
  }

  /**
   * The jobs the consumers of the JVM {@code pid} hold in their in-flight lists: those it had
   * started or claimed. Read at once after its kill, they stay there until its heartbeats expire.
   */
  private static Set<String> heldBy(long pid) {
    Set<String> ids = new HashSet<>();
    for (String key : inspector.inFlightKeys()) {
      if (key.matches(".*@[^@]*:" + pid + ":\\d+$")) {
        connection.client().lrange(key, 0, -1).forEach(element -> ids.add(Delivery.idOf(element)));
      }
    }
    return ids;
  }

  /** Waits (up to 5 s) for an app other than the JVM {@code pid} to hold the lease; its id. */
  private static String awaitLeaseHolderOtherThan(long pid) {
    long deadline = System.currentTimeMillis() + 5_000;
    String holder = leaseHolder();
    while ((holder == null || holder.endsWith(":" + pid)) && System.currentTimeMillis() < deadline) {
      sleep(10);
      holder = leaseHolder();
    }
    assertThat(holder).as("the lease holder once the JVM " + pid + " stopped").isNotNull().doesNotEndWith(":" + pid);
    return holder;
  }

  /** The lease holder's id, "app-scheduler-N@host:pid", or null while none holds it. */
  private static String leaseHolder() {
    return connection.client().get(keys.leader());
  }

  private static void sleep(long ms) {
    if (ms <= 0) {
      return;
    }
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}

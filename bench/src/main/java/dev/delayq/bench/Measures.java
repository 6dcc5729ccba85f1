package dev.delayq.bench;

import dev.delayq.DelayQueue;
import dev.delayq.JobOptions;
import dev.delayq.JobRequest;
import dev.delayq.redis.Delivery;
import dev.delayq.redis.Forwarded;
import dev.delayq.redis.Inspector;
import dev.delayq.redis.InvariantCheck;
import dev.delayq.redis.JobBrowser;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBroker;
import dev.delayq.schedule.Cadence;
import dev.delayq.schedule.Schedule;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * The measures of {@code delayq bench}. Each runs on a fresh queue of the bench Redis and
 * returns its figures under stable keys (jobs_per_s, lateness_ms, bytes_per_job, …).
 */
final class Measures {
  private final BenchRedis redis;
  private final Path home;
  private final Path workDir;
  private final int payloadBytes;
  private final int shards;

  Measures(BenchRedis redis, Path home, Path workDir, int payloadBytes) {
    this(redis, home, workDir, payloadBytes, 1);
  }

  /** Measures on queues of {@code shards} shards (queue.shards). */
  Measures(BenchRedis redis, Path home, Path workDir, int payloadBytes, int shards) {
    this.redis = redis;
    this.home = home;
    this.workDir = workDir;
    this.payloadBytes = payloadBytes;
    this.shards = shards;
  }

  /** A fresh queue: its keys, broker and producer. */
  record Queue(String name, Keys keys, RedisBroker broker, DelayQueue producer) {}

  Queue freshQueue() {
    String name = "bench-" + UUID.randomUUID().toString().substring(0, 8);
    int[] owners = redis.slotOwners();
    // on a cluster: a name whose shards are served by as many masters as can be (one each, up to
    // the masters' count), so that the split of the Redis CPU shows the spread and not a hash draw
    for (int tries = 0; owners != null && tries < 100_000; tries++) {
      java.util.Set<Integer> masters = new java.util.HashSet<>();
      for (Keys shard : Keys.sharded("delayq", name, shards).allShards()) {
        masters.add(owners[JedisClusterCRC16.getSlot(shard.jobs())]);
      }
      if (masters.size() == Math.min(shards, redis.cpuByMaster().size())) {
        break;
      }
      name = "bench-" + UUID.randomUUID().toString().substring(0, 8);
    }
    return queueNamed(name);
  }

  /** The queue {@code name}: its keys, broker and producer. */
  Queue queueNamed(String name) {
    Keys keys = Keys.sharded("delayq", name, shards);
    RedisBroker broker = new RedisBroker(redis.connection(), keys);
    broker.prepare();
    return new Queue(name, keys, broker, new DelayQueue(broker, 1 << 20, 5));
  }

  /** A JSON object of about {@code payloadBytes} bytes, like the anchors' ~100-byte payload. */
  String payload() {
    String base = "{\"order_id\":1001,\"user_id\":4242,\"amount\":\"19.99\",\"currency\":\"EUR\",\"note\":\"";
    StringBuilder sb = new StringBuilder(base);
    while (sb.length() < payloadBytes - 2) {
      sb.append('x');
    }
    return sb.append("\"}").toString();
  }

  // ---- enqueue ---------------------------------------------------------------------------

  /** The pace and length of the single synchronous calls (a few seconds: the bench stays quick). */
  private static final int SINGLE_CALLS_PER_S = 1000;
  private static final int SINGLE_CALL_SECONDS = 3;

  Map<String, Object> enqueue(int n, int inFlight) throws Exception {
    String payload = payload();
    Queue batched = freshQueue();
    List<JobRequest> jobs = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      jobs.add(JobRequest.delay("noop", payload, Duration.ofMillis(ThreadLocalRandom.current().nextLong(60_000) + 60_000)));
    }
    Map<String, Double> split0 = redis.cpuByMaster();
    double cpu0 = redis.cpuSeconds();
    long t0 = System.nanoTime();
    batched.producer().enqueueAll(jobs);
    double batchedRate = n / seconds(t0);
    double batchedRedisUs = (redis.cpuSeconds() - cpu0) * 1e6 / n;
    Map<String, Double> batchedSplit = cpuSplit(split0, redis.cpuByMaster());
    clear(batched);

    Queue single = freshQueue();
    ExecutorService pool = Executors.newFixedThreadPool(inFlight);
    double cpu1 = redis.cpuSeconds();
    long t1 = System.nanoTime();
    List<Future<?>> futures = new ArrayList<>();
    int perThread = n / inFlight;
    for (int t = 0; t < inFlight; t++) {
      futures.add(pool.submit(() -> {
        for (int i = 0; i < perThread; i++) {
          single.producer().delay("noop", payload,
              Duration.ofMillis(ThreadLocalRandom.current().nextLong(60_000) + 60_000));
        }
        return null;
      }));
    }
    for (Future<?> f : futures) {
      f.get();
    }
    double singleRate = (double) perThread * inFlight / seconds(t1);
    double singleRedisUs = (redis.cpuSeconds() - cpu1) * 1e6 / ((double) perThread * inFlight);
    pool.shutdown();
    clear(single);

    // a web request's enqueue: one call alone, waiting for its reply, 1,000 a second
    Queue alone = freshQueue();
    Map<String, Object> singleCalls = SingleCalls.measure(alone.producer(), payload, SINGLE_CALLS_PER_S,
        SINGLE_CALL_SECONDS);
    clear(alone);
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("jobs_per_s", Math.round(Math.max(batchedRate, singleRate)));
    out.put("batched_jobs_per_s", Math.round(batchedRate));
    out.put("one_by_one_jobs_per_s", Math.round(singleRate));
    out.put("one_by_one_in_flight", inFlight);
    out.put("batched_redis_cpu_us_per_job", round2(batchedRedisUs));
    out.put("one_by_one_redis_cpu_us_per_job", round2(singleRedisUs));
    out.putAll(singleCalls);
    putSplit(out, batchedSplit);
    return out;
  }

  // ---- forward ---------------------------------------------------------------------------

  Map<String, Object> forward(int n, int batchSize) throws Exception {
    Queue q = freshQueue();
    seedDue(q, n, "noop", payload(), seedDelayMs(n));
    long longestNanos = 0;
    double cpu0 = redis.cpuSeconds();
    long t0 = System.nanoTime();
    int moved = 0;
    int emptyInARow = 0;
    for (int shard = 0; moved < n; shard = (shard + 1) % shards) {
      long c0 = System.nanoTime();
      Forwarded f = q.broker().scheduling().moveDueToReady(shard, batchSize);
      longestNanos = Math.max(longestNanos, System.nanoTime() - c0);
      moved += f.moved();
      emptyInARow = f.moved() == 0 ? emptyInARow + 1 : 0;
      if (emptyInARow >= shards) {
        throw new IllegalStateException("forward moved nothing with " + (n - moved) + " left");
      }
    }
    double rate = n / seconds(t0);
    double redisUs = (redis.cpuSeconds() - cpu0) * 1e6 / n;
    clear(q);
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("jobs_per_s", Math.round(rate));
    out.put("redis_us_per_job", round2(redisUs));
    out.put("longest_call_ms", round2(longestNanos / 1e6));
    out.put("batch_size", batchSize);
    return out;
  }

  // ---- drain -----------------------------------------------------------------------------

  Map<String, Object> drain(int n, int workers, int threads) throws Exception {
    Queue q = freshQueue();
    try (SupervisorRun supervisor = supervisor(q, workers, threads)) {
      awaitConsumers(q, workers * threads);
      long dueAt = seedDue(q, n, "noop", payload(), seedDelayMs(n));
      Map<String, Double> split0 = redis.cpuByMaster();
      double cpuBefore = redis.cpuSeconds();
      Map<String, long[]> commandsBefore = redis.commandStats();
      Inspector inspector = new Inspector(redis.redis(), q.keys());
      InvariantCheck invariant = new InvariantCheck(redis.redis(), q.keys());
      while (records(q) > 0) {
        Thread.sleep(2);
      }
      long doneAt = redisNowMs();
      double redisCpu = redis.cpuSeconds() - cpuBefore;
      Map<String, Double> split = cpuSplit(split0, redis.cpuByMaster());
      double rate = n * 1000.0 / Math.max(1, doneAt - dueAt);
      List<InvariantCheck.Breach> breaches = invariant.breaches();
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("jobs_per_s", Math.round(rate));
      out.put("workers", workers);
      out.put("threads", threads);
      out.put("redis_cpu_us_per_job", round2(redisCpu * 1e6 / n));
      out.put("redis_cpu_share", round2(redisCpu * 1000 / Math.max(1, doneAt - dueAt)));
      out.put("redis_usec_per_job_by_command", perJob(commandsBefore, redis.commandStats(), n));
      putSplit(out, split);
      out.put("consistency_breaches", breaches.size());
      out.put("ran_exactly_once", breaches.isEmpty() && inspector.depths().dead() == 0
          && sumStat(q, "count:started:noop") == n);
      return out;
    } finally {
      clear(q);
    }
  }

  // ---- several queues -------------------------------------------------------------------

  /**
   * Three queues weighted 6/3/1 (worker.queues), {@code n}/3 jobs due together in each: the
   * share of the starts each queue had over the first half of them (while all three still had
   * due jobs), against its weight, and the jobs per second over all three. Each start is stamped
   * by the probe handler (pushed in batches, see ProbeStamps; the drain measure pays none).
   */
  Map<String, Object> queues(int n, int workers, int threads) throws Exception {
    Queue main = freshQueue();
    List<Queue> queues = List.of(queueNamed(main.name() + "-critical"), main, queueNamed(main.name() + "-low"));
    int[] weights = {6, 3, 1};
    String log = "bench:queues:" + main.name();
    Path conf = workDir.resolve("home-" + main.name()).resolve("conf");
    Files.createDirectories(conf);
    Files.writeString(conf.resolve("delayq.yml"), "worker:\n  queues: {" + queues.get(0).name() + ": 6, "
        + main.name() + ": 3, " + queues.get(2).name() + ": 1}\n");
    try (SupervisorRun supervisor = supervisor(main, workers, threads)) {
      for (Queue q : queues) {
        awaitConsumers(q, workers * threads);
      }
      int perQueue = n / 3;
      long delayMs = seedDelayMs(n);
      long seedStart = redisNowMs();
      long dueAt = seedStart + delayMs;
      Map<String, Integer> queueOf = new java.util.HashMap<>();
      String payload = "{\"log\":\"" + log + "\",\"marker\":true}";
      for (int i = 0; i < queues.size(); i++) {
        List<JobRequest> jobs = new ArrayList<>(perQueue);
        for (int j = 0; j < perQueue; j++) {
          jobs.add(JobRequest.at("bench_probe", payload, java.time.Instant.ofEpochMilli(dueAt)));
        }
        for (dev.delayq.EnqueueResult r : queues.get(i).producer().enqueueAll(jobs)) {
          queueOf.put(r.id(), i);
        }
      }
      if (redisNowMs() > dueAt) {
        throw seedingOverran(n, redisNowMs() - seedStart, delayMs);
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120 + n / 1000);
      while (queues.stream().mapToLong(this::records).sum() > 0) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the three queues did not drain; see " + workDir);
        }
        Thread.sleep(5);
      }
      awaitStamps(log, queueOf.size(), "the three queues' jobs");
      List<long[]> starts = new ArrayList<>();  // {start ms, queue}
      for (String e : redis.redis().lrange(log, 0, -1)) {
        int comma = e.lastIndexOf(',');
        starts.add(new long[] {Long.parseLong(e.substring(comma + 1)), queueOf.get(e.substring(0, comma))});
      }
      starts.sort((a, b) -> Long.compare(a[0], b[0]));
      int window = starts.size() / 2;
      int[] count = new int[3];
      for (int i = 0; i < window; i++) {
        count[(int) starts.get(i)[1]]++;
      }
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("weights", "6/3/1");
      out.put("jobs", perQueue * 3);
      out.put("workers", workers);
      out.put("threads", threads);
      long last = starts.isEmpty() ? dueAt : starts.get(starts.size() - 1)[0];
      out.put("jobs_per_s", Math.round(perQueue * 3 * 1000.0 / Math.max(1, last - dueAt)));
      double worst = 0;
      String[] labels = {"critical", "default", "low"};
      for (int i = 0; i < 3; i++) {
        double share = 100.0 * count[i] / Math.max(1, window);
        out.put("share_pct_" + labels[i], round2(share));
        worst = Math.max(worst, Math.abs(share - weights[i] * 10.0) / (weights[i] * 10.0));
      }
      out.put("share_window_starts", window);
      out.put("worst_share_off_weight_pct", round2(100 * worst));
      int breaches = 0;
      long dead = 0;
      for (Queue q : queues) {
        breaches += new InvariantCheck(redis.redis(), q.keys()).breaches().size();
        dead += redis.redis().zcard(q.keys().dead());
      }
      out.put("started", starts.size());
      out.put("dead", dead);
      out.put("consistency_breaches", breaches);
      return out;
    } finally {
      redis.redis().del(log);
      queues.forEach(this::clear);
    }
  }

  // ---- rate limit ----------------------------------------------------------------------

  /**
   * Drains {@code n} due jobs of a type limited to {@code limit} starts per second (queue.limits)
   * and checks the limit's accuracy from the handlers' own start times: the starts in the busiest
   * one-second window (sliding, by ms), and the rate achieved from the first start to the last.
   */
  Map<String, Object> rateLimit(int n, int workers, int threads, int limit) throws Exception {
    Queue q = freshQueue();
    String log = "bench:rate:" + q.name();
    Path conf = workDir.resolve("home-" + q.name()).resolve("conf");
    Files.createDirectories(conf);
    Files.writeString(conf.resolve("delayq.yml"), "queue:\n  limits:\n    - type: bench_probe\n      rate: "
        + limit + "/1s\n");
    try (SupervisorRun supervisor = supervisor(q, workers, threads)) {
      awaitConsumers(q, workers * threads);
      seedDue(q, n, "bench_probe", "{\"log\":\"" + log + "\",\"marker\":true}", seedDelayMs(n));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60 + 2L * n / limit);
      while (redis.redis().hlen(q.keys().jobs()) > 0) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the rate-limited jobs did not drain; see " + workDir);
        }
        Thread.sleep(20);
      }
      awaitStamps(log, n, "the rate-limited jobs");
      long[] starts = redis.redis().lrange(log, 0, -1).stream()
          .mapToLong(e -> Long.parseLong(e.substring(e.lastIndexOf(',') + 1))).sorted().toArray();
      int busiest = 0;
      for (int i = 0, j = 0; i < starts.length; i++) {
        while (starts[i] - starts[j] >= 1000) {
          j++;
        }
        busiest = Math.max(busiest, i - j + 1);
      }
      double spanS = starts.length < 2 ? 1 : (starts[starts.length - 1] - starts[0]) / 1000.0;
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("limit_per_s", limit);
      out.put("jobs", n);
      out.put("started", starts.length);
      out.put("achieved_per_s", Math.round((starts.length - 1) / spanS));
      out.put("busiest_1s_window", busiest);
      out.put("busiest_over_limit_pct", round2(100.0 * (busiest - limit) / limit));
      out.put("dead", redis.redis().zcard(q.keys().dead()));
      out.put("consistency_breaches", new InvariantCheck(redis.redis(), q.keys()).breaches().size());
      return out;
    } finally {
      redis.redis().del(log);
      clear(q);
    }
  }

  /**
   * Where the Redis time of a drain went, from INFO commandstats before and after: the six
   * commands with the most microseconds, as µs per drained job. evalsha holds the scripts'
   * whole time; the commands they run are counted again under their own names (a breakdown
   * of it, not an addition). Commandstats time only the commands' execution, not the I/O,
   * which is why their sum is below redis_cpu_us_per_job.
   */
  private static Map<String, Object> perJob(Map<String, long[]> before, Map<String, long[]> after, int n) {
    Map<String, Object> out = new LinkedHashMap<>();
    after.entrySet().stream()
        .map(e -> Map.entry(e.getKey(), e.getValue()[1] - before.getOrDefault(e.getKey(), new long[2])[1]))
        .filter(e -> e.getValue() > 0)
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .limit(6)
        .forEach(e -> out.put(e.getKey(), round2(e.getValue() / (double) n)));
    return out;
  }

  /**
   * Redis calls per job from INFO commandstats before and after (all masters), every command called
   * at least once per 50 jobs: a round trip more per job shows here however loaded the machine is. Commands run
   * inside scripts are counted again under their own names.
   */
  private static Map<String, Object> callsPerJob(Map<String, long[]> before, Map<String, long[]> after, long n) {
    Map<String, Object> out = new LinkedHashMap<>();
    after.entrySet().stream()
        .map(e -> Map.entry(e.getKey(), e.getValue()[0] - before.getOrDefault(e.getKey(), new long[2])[0]))
        .filter(e -> e.getValue() >= n / 50)
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .forEach(e -> out.put(e.getKey(), round2(e.getValue() / (double) n)));
    return out;
  }

  // ---- supervisor ------------------------------------------------------------------------

  Map<String, Object> supervision(int threads) throws Exception {
    Queue q = freshQueue();
    Map<String, Object> out = new LinkedHashMap<>();
    try (SupervisorRun supervisor = supervisor(q, 2, threads)) {
      awaitConsumers(q, 2 * threads);
      String log = "bench:marker:" + q.name();
      String id = q.producer().delay("bench_probe",
          "{\"log\":\"" + log + "\",\"marker\":true,\"sleepMs\":4000}", Duration.ZERO).id();
      awaitStamps(log, 1, 60, "the marker job's start");
      String holder = null;
      for (String consumer : q.broker().consumerRegistry().consumers()) {
        if (redis.redis().lrange(q.keys().inFlight(consumer), 0, -1).stream()
            .map(Delivery::idOf).anyMatch(id::equals)) {
          holder = consumer;
        }
      }
      if (holder == null) {
        throw new IllegalStateException("the marker job is in no consumer's in-flight list");
      }
      String name = holder.substring(0, holder.indexOf('@'));
      long pid = Long.parseLong(holder.split(":")[1]);
      long killedAt = System.currentTimeMillis();
      ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
      long restartedAt = supervisor.awaitChildren(children -> children.stream().anyMatch(c ->
          c.path("name").asText().equals(name) && c.path("pid").asLong() != pid
              && c.path("state").asText().equals("RUNNING")), 60);
      awaitStamps(log, 2, 30, "the marker job's starts (the killed worker's job did not run again)");
      List<String> starts = redis.redis().lrange(log, 0, -1);
      long rerunAt = Long.parseLong(starts.get(1).split(",")[1]);
      out.put("restart_ms", restartedAt - killedAt);
      out.put("rerun_ms", rerunAt - killedAt);

      long reloadFrom = System.currentTimeMillis();
      supervisor.reload(8);
      long reloaded = supervisor.awaitChildren(children -> SupervisorRun.running(children, "worker") == 8, 120);
      out.put("reload_ms", reloaded - reloadFrom);
      List<Double> rss = new ArrayList<>();
      for (var c : supervisor.children()) {
        if (c.path("role").asText().equals("worker")) {
          rss.add(SupervisorRun.rssMb(c.path("pid").asLong()));
        }
      }
      rss.sort(Double::compare);
      out.put("rss_mb", round2(rss.get(rss.size() / 2)));
      out.put("reload_workers", "2->8");

      // stop with every consumer of the 8 workers busy on a 3 s job: all finish and are acked
      long idleDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (records(q) > 0 && System.nanoTime() < idleDeadline) {
        Thread.sleep(10); // the marker job's second run ends first
      }
      int busy = 8 * threads;
      String sleepers = "bench:sleepers:" + q.name();
      List<JobRequest> jobs = new ArrayList<>();
      for (int i = 0; i < busy; i++) {
        jobs.add(JobRequest.delay("bench_probe",
            "{\"log\":\"" + sleepers + "\",\"marker\":true,\"sleepMs\":3000}", Duration.ZERO));
      }
      q.producer().enqueueAll(jobs);
      long busyDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (redis.redis().llen(sleepers) < busy && System.nanoTime() < busyDeadline) {
        Thread.sleep(5);
      }
      long stopFrom = System.currentTimeMillis();
      supervisor.stop(Duration.ofSeconds(30));
      out.put("stop_ms", System.currentTimeMillis() - stopFrom);
      out.put("stop_busy_jobs", busy);
      out.put("stop_jobs_left", records(q));
      return out;
    } finally {
      clear(q);
    }
  }

  SupervisorRun supervisor(Queue q, int workers, int threads) throws Exception {
    Path home = workDir.resolve("home-" + q.name());
    Path jobs = home.resolve("jobs");
    Files.createDirectories(jobs);
    ProbeJar.writeTo(jobs.resolve("bench-probe.jar"));
    Map<String, String> env = new java.util.HashMap<>(redis.env());
    env.putAll(Map.of("DELAYQ_QUEUE", q.name(), "DELAYQ_QUEUE_SHARDS", Integer.toString(shards),
        "DELAYQ_WORKER_THREADS", Integer.toString(threads), "DELAYQ_WEB_ENABLED", "false"));
    return SupervisorRun.start(this.home, home, env, workers);
  }

  /**
   * Waits until {@code log} holds {@code count} stamps: the probes push theirs in batches
   * ({@link ProbeStamps}), so the last ones arrive up to a flush period after their jobs ended.
   */
  private void awaitStamps(String log, long count, String what) throws InterruptedException {
    awaitStamps(log, count, 10, what);
  }

  /** {@link #awaitStamps(String, long, String)}, for at most {@code seconds}. */
  void awaitStamps(String log, long count, long seconds, String what) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (redis.redis().llen(log) < count) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("only " + redis.redis().llen(log) + " stamps of " + count + " of "
            + what + " arrived within " + seconds + " s");
      }
      Thread.sleep(5);
    }
  }

  void awaitConsumers(Queue q, int consumers) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (q.broker().consumerRegistry().consumers().size() < consumers) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("workers did not register; see " + workDir);
      }
      Thread.sleep(20);
    }
  }

  private long sumStat(Queue q, String field) throws InterruptedException {
    Thread.sleep(1500); // workers flush their counters once a second
    String v = redis.redis().hget(q.keys().stats(), field);
    return v == null ? 0 : Long.parseLong(v);
  }

  // ---- precision -------------------------------------------------------------------------

  Map<String, Object> precision(int n, int spreadSeconds, int workers, int threads,
      int sustainRate, int sustainSeconds) throws Exception {
    Map<String, Object> out = new LinkedHashMap<>();
    Queue q = freshQueue();
    try (SupervisorRun supervisor = supervisor(q, workers, threads)) {
      awaitConsumers(q, workers * threads);
      String log = "bench:lateness:" + q.name();
      String payload = "{\"log\":\"" + log + "\"}";
      List<JobRequest> jobs = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        long delay = 1000 + (long) i * spreadSeconds * 1000 / n;
        jobs.add(JobRequest.delay("bench_probe", payload, Duration.ofMillis(delay)));
      }
      q.producer().enqueueAll(jobs);
      out.put("spread", lateness(q, log, n, spreadSeconds + 30, "spread"));

      redis.redis().del(log);
      double redisCpu0 = redis.cpuSeconds();
      double childrenCpu0 = supervisor.childrenCpuSeconds();
      long total = (long) sustainRate * sustainSeconds;
      Map<String, long[]> commandsBefore = redis.commandStats();
      BacklogSampler backlog = BacklogSampler.start(redis.redis(), q.keys());
      long t0 = System.nanoTime();
      long sent = 0;
      while (sent < total) {
        long shouldHave = Math.min(total, (System.nanoTime() - t0) * sustainRate / 1_000_000_000L);
        if (shouldHave > sent) {
          List<JobRequest> chunk = new ArrayList<>();
          for (long i = sent; i < shouldHave; i++) {
            chunk.add(JobRequest.delay("bench_probe", payload, Duration.ofMillis(500)));
          }
          q.producer().enqueueAll(chunk);
          sent = shouldHave;
        } else {
          Thread.sleep(1);
        }
      }
      out.put("sustained", lateness(q, log, (int) total, 60, "sustained"));
      out.put("sustained_backlog", backlog.summary());
      out.put("sustained_calls_per_job", callsPerJob(commandsBefore, redis.commandStats(), total));
      // the cost of a job, which sets how close to saturation the sustained rate runs these cores
      out.put("sustained_redis_cpu_us_per_job", round2((redis.cpuSeconds() - redisCpu0) * 1e6 / total));
      out.put("sustained_delayq_cpu_us_per_job", round2((supervisor.childrenCpuSeconds() - childrenCpu0) * 1e6 / total));
      out.put("sustained_rate", sustainRate);
      out.put("sustained_seconds", sustainSeconds);
      @SuppressWarnings("unchecked")
      Map<String, Object> spread = (Map<String, Object>) out.get("spread");
      out.put("lateness_ms", spread.get("lateness_ms"));
      return out;
    } finally {
      clear(q);
    }
  }

  /**
   * Tick precision: one {@code --every 1s} schedule for {@code seconds} s with the supervisor's
   * one scheduler and {@code workers} x {@code threads} consumers, each tick's job recording how
   * late its handler started against its tick time ({@code JobContext.tickAt()}). The first tick
   * is at least 1 s after the upsert; the schedule is removed after the last.
   */
  Map<String, Object> ticks(int seconds, int workers, int threads) throws Exception {
    Queue q = freshQueue();
    try (SupervisorRun supervisor = supervisor(q, workers, threads)) {
      awaitConsumers(q, workers * threads);
      String log = "bench:ticks:" + q.name();
      q.producer().schedules().upsert(new Schedule("bench-tick", new Cadence.Every(Duration.ofSeconds(1)),
          "bench_probe", "{\"log\":\"" + log + "\",\"tick\":true}", 1, false, Schedule.Missed.SKIP));
      awaitStamps(log, seconds, seconds + 30, "the ticks");
      q.producer().schedules().remove("bench-tick");
      List<String> first = redis.redis().lrange(log, 0, seconds - 1);
      if (first.stream().anyMatch(e -> e.startsWith("none,"))) {
        throw new IllegalStateException("a tick's job had no tickAt: " + first);
      }
      redis.redis().del(log);
      redis.redis().rpush(log, first.toArray(String[]::new));
      Map<String, Object> out = lateness(log, seconds, 5);
      out.put("ticks", seconds);
      // other load on the machine shows in the tail: say how busy it was
      double load = java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
      out.put("load_average_1m", Math.round(load * 100) / 100.0);
      return out;
    } finally {
      clear(q);
    }
  }

  private Map<String, Object> lateness(String log, int n, int timeoutSeconds) throws InterruptedException {
    return lateness(null, log, n, timeoutSeconds, "");
  }

  /**
   * The lateness of the {@code n} probes of {@code log}; of a queue {@code q} of several shards,
   * also per shard (which tells a shard left waiting from a queue late as a whole). With
   * DELAYQ_BENCH_TRACE_DIR set, every probe's line (in start order: "late ms,id") goes to
   * {@code <dir>/<part>.txt} for a closer look.
   */
  Map<String, Object> lateness(Queue q, String log, int n, int timeoutSeconds, String part)
      throws InterruptedException {
    awaitStamps(log, n, timeoutSeconds, "the probes");
    List<String> lines = redis.redis().lrange(log, 0, -1);
    String traceDir = System.getenv("DELAYQ_BENCH_TRACE_DIR");
    if (traceDir != null && !traceDir.isBlank() && !part.isEmpty()) {
      try {
        Files.write(Path.of(traceDir, part + ".txt"), lines);
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
    int k = q == null ? 1 : q.keys().shards();
    Histogram h = new Histogram(3_600_000L, 3);
    Histogram[] byShard = new Histogram[k];
    for (int i = 0; i < k; i++) {
      byShard[i] = new Histogram(3_600_000L, 3);
    }
    long early = 0;
    long min = Long.MAX_VALUE;
    for (String v : lines) {
      int comma = v.indexOf(',');
      long ms = Long.parseLong(v.substring(0, comma));
      min = Math.min(min, ms);
      if (ms < 0) {
        early++;
      }
      h.recordValue(Math.max(0, ms));
      if (k > 1) {
        byShard[q.keys().shardIndexOf(v.substring(comma + 1))].recordValue(Math.max(0, ms));
      }
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("jobs", n);
    out.put("lateness_ms", percentiles(h));
    if (k > 1) {
      List<Map<String, Object>> shardsOut = new ArrayList<>();
      for (Histogram s : byShard) {
        shardsOut.add(percentiles(s));
      }
      out.put("lateness_ms_by_shard", shardsOut);
    }
    out.put("min_ms", min);
    out.put("early", early);
    return out;
  }

  private static Map<String, Object> percentiles(Histogram h) {
    Map<String, Object> l = new LinkedHashMap<>();
    l.put("p50", h.getValueAtPercentile(50));
    l.put("p90", h.getValueAtPercentile(90));
    l.put("p99", h.getValueAtPercentile(99));
    l.put("max", h.getMaxValue());
    return l;
  }

  // ---- pipeline --------------------------------------------------------------------------

  /**
   * The wall-clock time of one pipeline over the queue's shards (an LLEN of each shard's ready,
   * as a claim sends beside itself), against one LLEN alone, {@code n} of each interleaved, so
   * that both see the same load. On a cluster whose masters each serve a shard, a pipeline that
   * waits for its masters in turn costs about a round trip per master, one that sends to every
   * master first about one round trip: the ratio says which, however loaded the machine is.
   */
  Map<String, Object> pipeline(int n) {
    Queue q = freshQueue();
    Histogram one = new Histogram(60_000_000L, 3);
    Histogram all = new Histogram(60_000_000L, 3);
    List<Keys> shards = q.keys().allShards();
    for (int i = 0; i < Math.max(100, n); i++) {
      long t0 = System.nanoTime();
      redis.redis().llen(shards.get(0).ready());
      long t1 = System.nanoTime();
      try (redis.clients.jedis.AbstractPipeline p = dev.delayq.redis.Pipelines.open(redis.redis())) {
        for (Keys shard : shards) {
          p.llen(shard.ready());
        }
        p.sync();
      }
      long t2 = System.nanoTime();
      one.recordValue((t1 - t0) / 1000);
      all.recordValue((t2 - t1) / 1000);
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("pipelines", Math.max(100, n));
    out.put("shards", shards.size());
    out.put("one_command_us_p50", one.getValueAtPercentile(50));
    out.put("one_command_us_p99", one.getValueAtPercentile(99));
    out.put("pipeline_us_p50", all.getValueAtPercentile(50));
    out.put("pipeline_us_p99", all.getValueAtPercentile(99));
    out.put("pipeline_over_one_p50", round2(all.getValueAtPercentile(50) / (double) Math.max(1, one.getValueAtPercentile(50))));
    return out;
  }

  // ---- memory ----------------------------------------------------------------------------

  Map<String, Object> memory(int n) throws Exception {
    Queue q = freshQueue();
    String payload = payload();
    List<JobRequest> jobs = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      jobs.add(JobRequest.delay("noop", payload, Duration.ofMillis(3_600_000L + i)));
    }
    Map<String, Object> out = new LinkedHashMap<>(pendingMemory(q, jobs));
    out.put("payload_bytes", payload.length());
    out.put("jobs", n);
    // dense: every job due within one second (1 ms apart over n ms when n < 1,000)
    Queue dense = freshQueue();
    List<JobRequest> same = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      same.add(JobRequest.delay("noop", payload, Duration.ofMillis(3_600_000L + i % 1000)));
    }
    Map<String, Object> d = pendingMemory(dense, same);
    out.put("dense_bytes_per_job", d.get("bytes_per_job"));
    out.put("dense_delayed_bytes_per_job", d.get("delayed_bytes_per_job"));
    // ties: every job due at one ms (the wheel's buckets split by id)
    Queue tied = freshQueue();
    List<JobRequest> oneMs = new ArrayList<>(n);
    java.time.Instant at = java.time.Instant.ofEpochMilli(redisNowMs() + 3_600_000L);
    for (int i = 0; i < n; i++) {
      oneMs.add(JobRequest.at("noop", payload, at));
    }
    Map<String, Object> t = pendingMemory(tied, oneMs);
    out.put("one_ms_bytes_per_job", t.get("bytes_per_job"));
    out.put("one_ms_delayed_bytes_per_job", t.get("delayed_bytes_per_job"));
    out.put("bytes_per_remembered_id", rememberedIdBytes(Math.min(n, 20_000)));
    return out;
  }

  /**
   * Enqueues the jobs into q and reads what they cost: used_memory's growth per job (the slow log
   * emptied first, else its copies of batched calls would count), then each structure's own MEMORY
   * USAGE (every element sampled) per job, and one record's length; clears q after.
   */
  private Map<String, Object> pendingMemory(Queue q, List<JobRequest> jobs) {
    int n = jobs.size();
    // a warm-up job first, as the anchors measured: the script cache and the keys' own headers
    // are not a job's cost
    q.producer().delay("noop", "{}", Duration.ofHours(2));
    redis.memoryInfo();
    long before = redis.usedMemory();
    q.producer().enqueueAll(jobs);
    long after = redis.usedMemory();
    long bucketCount = 0;
    long delayed = 0;
    long index = 0;
    long buckets = 0;
    long records = 0;
    String record = null;
    for (Keys k : q.keys().allShards()) {
      delayed += memoryUsage(k.delayed());
      index += memoryUsage(k.delayedIndex()) + memoryUsage(k.delayedCount());
      List<String> positions = redis.redis().zrange(k.delayedIndex(), 0, -1);
      for (String position : positions) {
        buckets += memoryUsage(k.delayedBucket(position));
      }
      bucketCount += positions.size();
      records += memoryUsage(k.jobs());
      if (record == null) {
        String id = redis.redis().hrandfield(k.jobs());
        record = id == null ? null : redis.redis().hget(k.jobs(), id);
      }
    }
    clear(q);
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("bytes_per_job", Math.round((after - before) / (double) n));
    out.put("delayed_bytes_per_job", Math.round((delayed + index + buckets) / (double) n));
    out.put("wheel_index_bytes_per_job", Math.round(index / (double) n));
    out.put("wheel_buckets_bytes_per_job", Math.round(buckets / (double) n));
    out.put("wheel_buckets", bucketCount);
    out.put("old_delayed_zset_bytes_per_job", Math.round(delayed / (double) n));
    out.put("jobs_hash_bytes_per_job", Math.round(records / (double) n));
    out.put("record_bytes", record == null ? 0 : record.length());
    // its head: what the record adds to the payload
    out.put("record_head", record == null ? "" : record.substring(0, Math.min(record.length(), 90)));
    return out;
  }

  /** The time wheel's keys of a shard: its index, its buckets and its count. */
  private List<String> wheelKeys(Keys k) {
    List<String> out = new ArrayList<>();
    out.add(k.delayedIndex());
    out.add(k.delayedCount());
    for (String position : redis.redis().zrange(k.delayedIndex(), 0, -1)) {
      out.add(k.delayedBucket(position));
    }
    return out;
  }

  private long memoryUsage(String key) {
    Long bytes = redis.redis().memoryUsage(key, 0);
    return bytes == null ? 0 : bytes;
  }

  /**
   * What a caller-chosen id costs once its job ended and the id stays taken (queue.idRetention):
   * ids like an order's ("order-1000123"), enqueued, cancelled (which ends them as an ack does),
   * and the memory after compared with before the enqueue.
   */
  private long rememberedIdBytes(int n) {
    Queue q = freshQueue();
    List<JobRequest> jobs = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      jobs.add(JobRequest.delay("noop", "{}", Duration.ofHours(1)).with(JobOptions.withId("order-" + (1_000_000 + i))));
    }
    long before = redis.usedMemory();
    q.producer().enqueueAll(jobs);
    for (JobRequest j : jobs) {
      q.producer().cancel(j.options().id());
    }
    long after = redis.usedMemory();
    clear(q);
    return Math.round((after - before) / (double) n);
  }

  // ---- helpers ---------------------------------------------------------------------------

  /** Enqueues n jobs due together {@code inMs} from now (Redis clock); returns their due time. */
  long seedDue(Queue q, int n, String type, String payload, long inMs) throws InterruptedException {
    long start = redisNowMs();
    long dueAt = start + inMs;
    List<JobRequest> jobs = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      jobs.add(JobRequest.at(type, payload, java.time.Instant.ofEpochMilli(dueAt)));
    }
    q.producer().enqueueAll(jobs);
    long wait = dueAt - redisNowMs();
    if (wait < 0) {
      throw seedingOverran(n, redisNowMs() - start, inMs);
    }
    Thread.sleep(wait + 1);
    return dueAt;
  }

  /**
   * How far ahead the seeded jobs of a drain-like measure fall due: long enough for all of them
   * to be written first (they must all start from delayed, due at one ms). 2 s plus 0.1 ms a
   * job fits a quiet machine; each overrun lengthens it for the rest of the run.
   */
  long seedDelayMs(int n) {
    return Math.round((2000 + n / 10) * seedSlack);
  }

  private double seedSlack = 1;

  private SeedingOverran seedingOverran(int n, long tookMs, long delayMs) {
    seedSlack = Math.max(seedSlack * 2, 1.5 * tookMs / (2000 + n / 10));
    return new SeedingOverran("seeding " + n + " jobs took " + tookMs + " ms, longer than their "
        + delayMs + " ms delay (a busy machine): some fell due before the rest were written");
  }

  /** A run whose seeding overran the jobs' delay: worth running again with the longer one. */
  static final class SeedingOverran extends IllegalStateException {
    SeedingOverran(String message) {
      super(message);
    }
  }

  // ---- browse ----------------------------------------------------------------------------

  /**
   * The job browser's pages (delayq jobs, the dashboard's Jobs card) over {@code n} delayed jobs
   * due across the next 24 h, one in a hundred of a rare type: how long one page takes, median and
   * worst of 50, for the next hour, the next hour by the rare type, by an id prefix, and a page
   * half-way down the whole queue.
   */
  Map<String, Object> browse(int n) throws Exception {
    Queue q = freshQueue();
    String payload = payload();
    for (int from = 0; from < n; from += 100_000) {
      List<JobRequest> jobs = new ArrayList<>();
      for (int i = from; i < Math.min(n, from + 100_000); i++) {
        jobs.add(JobRequest.delay(i % 100 == 0 ? "rare" : "noop", payload,
            Duration.ofMillis(60_000 + ThreadLocalRandom.current().nextLong(86_400_000))));
      }
      q.producer().enqueueAll(jobs);
    }
    JobBrowser browser = new JobBrowser(redis.redis(), q.keys());
    long now = redisNowMs();
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("pending_jobs", n);
    out.put("next_hour_page_ms", pageMs(() -> browser.delayed(now, now + 3_600_000, new JobBrowser.Query(null, null, 50, 0))));
    out.put("next_hour_rare_type_page_ms",
        pageMs(() -> browser.delayed(now, now + 3_600_000, new JobBrowser.Query("rare", null, 50, 0))));
    out.put("id_prefix_page_ms", pageMs(() -> browser.delayed(0, Long.MAX_VALUE, new JobBrowser.Query(null, "A", 50, 0))));
    out.put("half_way_page_ms", pageMs(() -> browser.delayed(0, Long.MAX_VALUE, new JobBrowser.Query(null, null, 50, n / 2))));
    clear(q);
    return out;
  }

  private static Map<String, Object> pageMs(java.util.function.Supplier<JobBrowser.Page> page) {
    long[] ms = new long[50];
    for (int i = 0; i < ms.length; i++) {
      long t0 = System.nanoTime();
      page.get();
      ms[i] = (System.nanoTime() - t0) / 1_000;
    }
    java.util.Arrays.sort(ms);
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("median", round2(ms[ms.length / 2] / 1000.0));
    out.put("max", round2(ms[ms.length - 1] / 1000.0));
    return out;
  }

  long redisNowMs() {
    return redis.nowMs();
  }

  void clear(Queue q) {
    Inspector inspector = new Inspector(redis.redis(), q.keys());
    // one DEL per shard, of all its keys (a shard's keys share a slot; a cluster refuses a DEL
    // whose keys span slots)
    for (Keys k : q.keys().allShards()) {
      List<String> keys = new ArrayList<>(inspector.inFlightKeys(k));
      keys.addAll(wheelKeys(k));
      keys.addAll(List.of(k.delayed(), k.ready(), k.jobs(), k.dead(), k.wake(), k.consumers(), k.leader(),
          k.running(), k.deliveries(), k.stats(), k.schedulers(), k.ended(), k.endedExpiry(), k.paused(),
          k.heldIndex()));
      redis.redis().del(keys.toArray(String[]::new));
    }
    redis.redis().del(q.keys().layout());
  }

  /** Records left in the queue, over its shards. */
  long records(Queue q) {
    long n = 0;
    for (Keys k : q.keys().allShards()) {
      n += redis.redis().hlen(k.jobs());
    }
    return n;
  }

  /** Each master's share of the Redis CPU used between two readings, in percent. */
  private static Map<String, Double> cpuSplit(Map<String, Double> before, Map<String, Double> after) {
    double total = 0;
    Map<String, Double> used = new LinkedHashMap<>();
    for (Map.Entry<String, Double> e : after.entrySet()) {
      double u = e.getValue() - before.getOrDefault(e.getKey(), e.getValue());
      used.put(e.getKey(), u);
      total += u;
    }
    Map<String, Double> out = new LinkedHashMap<>();
    for (Map.Entry<String, Double> e : used.entrySet()) {
      out.put(e.getKey(), total <= 0 ? 0 : Math.round(e.getValue() * 1000 / total) / 10.0);
    }
    return out;
  }

  private static void putSplit(Map<String, Object> out, Map<String, Double> split) {
    if (split.size() > 1) {
      out.put("redis_cpu_split_pct", String.join(" / ", split.values().stream().map(v -> v + "%").toList()));
      out.put("max_master_cpu_pct", split.values().stream().mapToDouble(Double::doubleValue).max().orElse(0));
    }
  }

  private static double seconds(long t0) {
    return (System.nanoTime() - t0) / 1e9;
  }

  static double round2(double v) {
    return Math.round(v * 100) / 100.0;
  }

  Path home() {
    return home;
  }

  /** The shards of every queue this bench makes (--shards). */
  int shards() {
    return shards;
  }

  BenchRedis redis() {
    return redis;
  }

}

package dev.delayq.config;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The whole configuration, one immutable record per section of {@code conf/delayq.yml}.
 * Each canonical constructor checks its values; {@link ConfigLoader} names the key on failure.
 */
public record DelayqConfig(
    Redis redis, Queue queue, Scheduler scheduler, Worker worker, Retry retry,
    Supervisor supervisor, Jvm jvm, Web web, Map<String, QueueSettings> queues) {

  /**
   * Where the jobs live: one server at {@code url}, the master that the Sentinels at
   * {@code sentinels} name {@code masterName}, or the Redis Cluster whose seed nodes
   * {@code cluster} lists; TLS when the url is {@code rediss://}. An empty url without
   * sentinels or cluster means "the supervisor's embedded redis-server".
   */
  public record Redis(String url, int embeddedPort, boolean requireNoeviction,
      Duration connectTimeout, Duration socketTimeout,
      String tlsCaFile, String tlsCertFile, String tlsKeyFile, boolean tlsVerifyHostname,
      String sentinels, String masterName, int replicaAcks, Duration replicaAcksTimeout,
      String cluster) {
    public Redis {
      cluster = blankIfNull(cluster);
      url = url == null ? "" : url.trim();
      tlsCaFile = blankIfNull(tlsCaFile);
      tlsCertFile = blankIfNull(tlsCertFile);
      tlsKeyFile = blankIfNull(tlsKeyFile);
      sentinels = blankIfNull(sentinels);
      masterName = blankIfNull(masterName);
      Check.port("embeddedPort", embeddedPort);
      Check.positive("connectTimeout", connectTimeout);
      Check.positive("socketTimeout", socketTimeout);
      RedisAddress.check(url, sentinels, masterName, cluster, tlsCaFile, tlsCertFile, tlsKeyFile);
      Check.between("replicaAcks", replicaAcks, 0, 100);
      Check.positive("replicaAcksTimeout", replicaAcksTimeout);
      if (replicaAcksTimeout.compareTo(socketTimeout) >= 0) {
        throw new IllegalArgumentException("replicaAcksTimeout: must be shorter than socketTimeout ("
            + Durations.format(socketTimeout) + "): WAIT holds the connection that long");
      }
    }

    private static String blankIfNull(String s) {
      return s == null ? "" : s.trim();
    }

    /** The Sentinel addresses, host:port each (empty: no Sentinel). */
    public static List<String> sentinelList(String sentinels) {
      return sentinels == null || sentinels.isBlank() ? List.of()
          : List.of(sentinels.trim().split("\\s*,\\s*"));
    }

    public List<String> sentinelNodes() {
      return sentinelList(sentinels);
    }

    /** The cluster's seed nodes, host:port each (empty: not a cluster). */
    public List<String> clusterNodes() {
      return sentinelList(cluster);
    }

    /** True when the supervisor runs its own redis-server: no url, sentinels or cluster given. */
    public boolean embedded() {
      return url.isEmpty() && sentinels.isEmpty() && cluster.isEmpty();
    }

    public boolean tls() {
      return url.startsWith("rediss://");
    }

    public String embeddedUrl() {
      return "redis://127.0.0.1:" + embeddedPort;
    }
  }

  /**
   * {@code shards}: the Redis Cluster slots the queue is spread over (1: one slot, the default);
   * {@code limits}: flow control's rate limits and concurrency caps per type;
   * {@code handlerWait}: how long a due job whose type no live worker runs waits for one before it
   * goes to dead.
   */
  public record Queue(String name, String keyPrefix, int maxPayloadBytes, Duration idRetention, int shards,
      List<Limit> limits, Duration handlerWait, Integer maxResultBytes) {
    /** handlerWait's default: long enough for a rolling deploy that adds a type to finish. */
    public static final Duration DEFAULT_HANDLER_WAIT = Duration.ofHours(1);
    /** maxResultBytes's default, 64 KiB: a result is kept in Redis beside every job that has one. */
    public static final int DEFAULT_MAX_RESULT_BYTES = 64 << 10;

    public Queue(String name, String keyPrefix, int maxPayloadBytes, Duration idRetention, int shards,
        List<Limit> limits) {
      this(name, keyPrefix, maxPayloadBytes, idRetention, shards, limits, DEFAULT_HANDLER_WAIT);
    }

    public Queue(String name, String keyPrefix, int maxPayloadBytes, Duration idRetention, int shards,
        List<Limit> limits, Duration handlerWait) {
      this(name, keyPrefix, maxPayloadBytes, idRetention, shards, limits, handlerWait, DEFAULT_MAX_RESULT_BYTES);
    }

    public Queue {
      limits = limits == null ? List.of() : List.copyOf(limits);
      handlerWait = handlerWait == null ? DEFAULT_HANDLER_WAIT : handlerWait;
      maxResultBytes = maxResultBytes == null ? DEFAULT_MAX_RESULT_BYTES : maxResultBytes;
      Check.atLeast("maxResultBytes", maxResultBytes, 1);
      Check.positive("handlerWait", handlerWait);
      java.util.Set<String> seen = new java.util.HashSet<>();
      for (Limit l : limits) {
        if (!seen.add(l.type())) {
          throw new IllegalArgumentException("limits: type " + l.type() + " is listed twice");
        }
      }
      Check.matches("name", name, QUEUE_NAME);
      Check.matches("keyPrefix", keyPrefix, "[A-Za-z0-9_.:-]{1,64}");
      Check.atLeast("maxPayloadBytes", maxPayloadBytes, 1);
      Check.notNegative("idRetention", idRetention);
      Check.between("shards", shards, 1, 64);
      if (shards > 1 && !limits.isEmpty()) {
        // a rate window or a cap is one key in one slot, while a sharded queue's claims run in K
        // slots: each shard would enforce its own, K times the limit
        throw new IllegalArgumentException("limits: rate limits and concurrency caps are not supported"
            + " on a sharded queue yet (shards is " + shards + "); use shards: 1 for a limited queue");
      }
    }
  }

  /**
   * {@code standbyGrace}: how overdue a job must be before a scheduler that does not hold its
   * shard's lease (a hot standby) forwards it itself; so a dead lease holder makes due jobs late
   * by about this much, not by the lease TTL.
   */
  public record Scheduler(int batchSize, Duration leaseTtl, Duration recoverInterval, Duration standbyGrace) {
    public Scheduler {
      // Lua's unpack() takes at most a few thousand values.
      Check.between("batchSize", batchSize, 1, 5000);
      Check.atLeastDuration("leaseTtl", leaseTtl, Duration.ofSeconds(1));
      Check.positive("recoverInterval", recoverInterval);
      Check.atLeastDuration("standbyGrace", standbyGrace, Duration.ofMillis(1));
      if (standbyGrace.compareTo(leaseTtl) > 0) {
        // past the lease TTL a standby takes the lease over anyway
        throw new IllegalArgumentException("standbyGrace: must be at most leaseTtl (" + Durations.format(leaseTtl)
            + "), got " + Durations.format(standbyGrace));
      }
    }
  }

  /**
   * {@code maxProcesses}: the most worker processes {@code start --workers} and {@code reload
   * --workers} may ask for, so a typo cannot start a thousand JVMs. {@code queues}: the queues a
   * worker serves, in order, each with its weight (empty: queue.name alone); {@code strict}: that
   * order is a strict priority instead of weights.
   */
  public record Worker(int processes, int threads, Duration pollTimeout, int prefetch,
      Duration heartbeatInterval, Duration heartbeatTtl, Duration jobTimeout,
      Duration interruptGrace, int poisonPillAfter, Duration drainTimeout, String jobsDir,
      int maxProcesses, int claimMaxBytes, Map<String, Integer> queues, boolean strict) {
    public Worker {
      queues = queues == null ? Map.of() : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(queues));
      for (Map.Entry<String, Integer> q : queues.entrySet()) {
        Check.matches("queues", q.getKey(), QUEUE_NAME);
        if (q.getValue() == null || q.getValue() < 1 || q.getValue() > 1000) {
          throw new IllegalArgumentException("queues: the weight of queue " + q.getKey()
              + " must be between 1 and 1000, got " + q.getValue());
        }
      }
      if (strict && queues.isEmpty()) {
        throw new IllegalArgumentException("strict: true needs worker.queues (the queues in their order)");
      }
      Check.between("maxProcesses", maxProcesses, 1, MAX_PROCESSES_LIMIT);
      if (processes < 0 || processes > maxProcesses) {
        throw new IllegalArgumentException("processes: must be between 0 and maxProcesses ("
            + maxProcesses + "), got " + processes);
      }
      Check.between("threads", threads, 1, 1024);
      Check.positive("pollTimeout", pollTimeout);
      Check.between("prefetch", prefetch, 1, 1000);
      Check.atLeast("claimMaxBytes", claimMaxBytes, 1024);
      Check.positive("heartbeatInterval", heartbeatInterval);
      Check.positive("heartbeatTtl", heartbeatTtl);
      if (heartbeatTtl.compareTo(heartbeatInterval.multipliedBy(2)) < 0) {
        throw new IllegalArgumentException("heartbeatTtl: must be at least twice heartbeatInterval ("
            + heartbeatInterval.multipliedBy(2).toMillis() + "ms), or live consumers get recovered");
      }
      Check.positive("jobTimeout", jobTimeout);
      Check.positive("interruptGrace", interruptGrace);
      Check.atLeast("poisonPillAfter", poisonPillAfter, 1);
      Check.positive("drainTimeout", drainTimeout);
      jobsDir = jobsDir == null ? "jobs" : jobsDir;
    }
  }

  public record Retry(int maxAttempts, Duration baseDelay, Duration maxDelay, double jitter) {
    public Retry {
      Check.between("maxAttempts", maxAttempts, 1, 1000);
      Check.positive("baseDelay", baseDelay);
      Check.positive("maxDelay", maxDelay);
      if (!(jitter >= 0 && jitter < 1)) {
        throw new IllegalArgumentException("jitter: must be a fraction from 0 up to (not including) 1");
      }
    }
  }

  public record Supervisor(Duration stopTimeout, Duration restartBackoffMin,
      Duration restartBackoffMax, Duration restartResetAfter, int restartIntensity,
      Duration restartPeriod, String runDir, String logDir, String dataDir, long logMaxBytes,
      int logBackups) {
    public Supervisor {
      Check.positive("stopTimeout", stopTimeout);
      Check.atLeastDuration("restartBackoffMin", restartBackoffMin, Duration.ofSeconds(1));
      Check.atLeastDuration("restartBackoffMax", restartBackoffMax, restartBackoffMin);
      Check.positive("restartResetAfter", restartResetAfter);
      Check.atLeast("restartIntensity", restartIntensity, 1);
      Check.positive("restartPeriod", restartPeriod);
      Check.matches("runDir", runDir, ".+");
      Check.matches("logDir", logDir, ".+");
      Check.matches("dataDir", dataDir, ".+");
      Check.atLeast("logMaxBytes", logMaxBytes, 0);
      Check.between("logBackups", logBackups, 0, 1000);
    }
  }

  /** JVM options of each child role, as one space-separated string each. */
  public record Jvm(String scheduler, String worker) {
    public Jvm {
      scheduler = scheduler == null ? "" : scheduler;
      worker = worker == null ? "" : worker;
    }

    public List<String> schedulerOptions() {
      return split(scheduler);
    }

    public List<String> workerOptions() {
      return split(worker);
    }

    private static List<String> split(String options) {
      return options.isBlank() ? List.of() : List.of(options.trim().split("\\s+"));
    }
  }

  /**
   * The supervisor's HTTP port: Prometheus metrics at /metrics, the dashboard at / and its JSON
   * API, which needs the token (generated at each start when {@code token} is empty). Anywhere
   * but loopback the token must be configured. {@code maxMetricTypes}: job types with series of
   * their own; the others are summed under {@code type="other"}.
   */
  public record Web(boolean enabled, String bind, int port, String token, int maxMetricTypes) {
    public Web {
      bind = bind == null ? "" : bind.trim();
      token = token == null ? "" : token.trim();
      Check.matches("bind", bind, "\\S+");
      Check.port("port", port);
      Check.between("maxMetricTypes", maxMetricTypes, 1, 10_000);
      if (enabled && token.isEmpty() && !isLoopback(bind)) {
        throw new IllegalArgumentException("token: must be set when bind is not a loopback address (bind "
            + bind + "): anyone who reaches the port could resize, restart and retry");
      }
    }

    /** True for 127.0.0.0/8, ::1 and localhost: only this host can connect. */
    public boolean loopback() {
      return isLoopback(bind);
    }

    private static boolean isLoopback(String host) {
      return host.matches("localhost|127(\\.\\d{1,3}){3}|::1|\\[::1\\]");
    }
  }

  /** The ceiling of worker.maxProcesses itself. */
  public static final int MAX_PROCESSES_LIMIT = 1024;

  /** What a queue name may be (it goes into every key of the queue, inside its hash tag). */
  static final String QUEUE_NAME = "[A-Za-z0-9_.:-]{1,64}";

  public DelayqConfig {
    Check.present("redis", redis);
    Check.present("queue", queue);
    Check.present("scheduler", scheduler);
    Check.present("worker", worker);
    Check.present("retry", retry);
    Check.present("supervisor", supervisor);
    Check.present("jvm", jvm);
    Check.present("web", web);
    queues = queues == null ? Map.of() : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(queues));
    List<String> served = servedQueues(queue, worker);
    for (String name : queues.keySet()) {
      Check.matches("queues", name, QUEUE_NAME);
      if (!served.contains(name)) {
        throw new IllegalArgumentException("queues: overrides queue " + name + ", which this system does "
            + "not serve (its queues: " + String.join(", ", served) + "; see worker.queues)");
      }
    }
    if (!worker.queues().isEmpty() && !worker.queues().containsKey(queue.name())) {
      throw new IllegalArgumentException("worker.queues: does not list queue.name (" + queue.name()
          + "), the queue producers and the CLI use by default: it would never be served; list it, "
          + "or set queue.name to one of " + String.join(", ", worker.queues().keySet()));
    }
    if (worker.pollTimeout().compareTo(redis.socketTimeout()) >= 0) {
      // a consumer's BLMOVE waits up to pollTimeout on a connection whose blocking reads give up
      // after socketTimeout (RedisConnector): an idle queue would look like a lost Redis
      throw new IllegalArgumentException("worker.pollTimeout: must be shorter than redis.socketTimeout ("
          + Durations.format(redis.socketTimeout()) + "): a consumer waits up to pollTimeout for a job on a "
          + "connection that gives up after socketTimeout");
    }
    if (worker.queues().size() > 1 && queue.shards() > 1) {
      throw new IllegalArgumentException("worker.queues: several queues on sharded queues (queue.shards "
          + queue.shards() + ") are not supported; use shards: 1, or one queue per system");
    }
  }

  /**
   * The queues of this system, in their order: worker.queues, or queue.name alone. The scheduler
   * forwards and recovers each, workers serve each, and the supervisor, stats and the dashboard
   * show each.
   */
  public List<String> queueNames() {
    return servedQueues(queue, worker);
  }

  private static List<String> servedQueues(Queue queue, Worker worker) {
    return worker.queues().isEmpty() ? List.of(queue.name()) : List.copyOf(worker.queues().keySet());
  }

  /** True when this system serves more than one queue. */
  public boolean severalQueues() {
    return worker.queues().size() > 1;
  }

  /**
   * The configuration of queue {@code name} alone, as a system of one queue would have it: its
   * name in queue.name, worker.queues empty, and its overrides of the {@code queues:} section
   * applied (retry, worker.jobTimeout). Every per-queue part (keys, broker, runner, scheduler
   * loop) is built from it. Any name is taken (the CLI reaches queues no worker serves).
   */
  public DelayqConfig forQueue(String name) {
    Check.matches("queue", name, QUEUE_NAME);
    QueueSettings own = queues.getOrDefault(name, new QueueSettings(null, null));
    Queue q = new Queue(name, queue.keyPrefix(), queue.maxPayloadBytes(), queue.idRetention(), queue.shards(),
        queue.limits(), queue.handlerWait(), queue.maxResultBytes());
    Worker w = worker;
    Worker one = new Worker(w.processes(), w.threads(), w.pollTimeout(), w.prefetch(), w.heartbeatInterval(),
        w.heartbeatTtl(), own.jobTimeout() == null ? w.jobTimeout() : own.jobTimeout(), w.interruptGrace(),
        w.poisonPillAfter(), w.drainTimeout(), w.jobsDir(), w.maxProcesses(), w.claimMaxBytes(), Map.of(), false);
    return new DelayqConfig(redis, q, scheduler, one, own.retry().over(retry), supervisor, jvm, web,
        queues.containsKey(name) ? Map.of(name, own) : Map.of());
  }

  /** {@link #forQueue} of each of {@link #queueNames}, in order. */
  public List<DelayqConfig> perQueue() {
    return queueNames().stream().map(this::forQueue).toList();
  }

  /**
   * The Redis URL processes connect to: the configured one, else the embedded server's. With
   * sentinels it only carries the scheme, credentials and database (or is empty).
   */
  public String redisUrl() {
    return redis.embedded() ? redis.embeddedUrl() : redis.url();
  }
}

package dev.delayq.spring;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code delayq.*} properties: the keys of {@code conf/delayq.yml}, section by section, with
 * the same names (so {@code DELAYQ_REDIS_URL} sets {@code delayq.redis.url} here as it sets
 * {@code redis.url} for the supervised processes). An unset key keeps the default of
 * conf/delayq.yml, and every value goes through the same checks, which name the key they refuse.
 * {@code delayq.worker.enabled} (it runs the in-app worker), {@code delayq.scheduler.enabled} (it
 * runs the scheduler engine in the app), {@code delayq.health.max-overdue} (when the actuator
 * health goes DOWN for late jobs) and {@code delayq.producer.after-commit} (enqueues inside a
 * transaction wait for its commit) are the starter's own keys.
 */
@ConfigurationProperties("delayq")
public class DelayqProperties {
  private final Redis redis = new Redis();
  private final Queue queue = new Queue();
  private final Worker worker = new Worker();
  private final Scheduler scheduler = new Scheduler();
  private final Retry retry = new Retry();
  private final Health health = new Health();
  private final Producer producer = new Producer();

  public Redis getRedis() {
    return redis;
  }

  public Queue getQueue() {
    return queue;
  }

  public Worker getWorker() {
    return worker;
  }

  public Scheduler getScheduler() {
    return scheduler;
  }

  public Retry getRetry() {
    return retry;
  }

  public Health getHealth() {
    return health;
  }

  public Producer getProducer() {
    return producer;
  }

  /** Where the jobs live (conf/delayq.yml {@code redis.*}). */
  public static class Redis {
    /**
     * redis://[user:password@]host:port[/db], rediss:// for TLS; with sentinels only the scheme,
     * credentials and database, the master name as host. Required in an app (no embedded Redis).
     */
    private String url;
    /** Refuse a Redis whose maxmemory-policy is not noeviction (eviction deletes jobs silently). Default true. */
    private Boolean requireNoeviction;
    /** Time to open a connection. Default 2s. */
    private Duration connectTimeout;
    /** Time to wait for the reply to a non-blocking command. Default 5s. */
    private Duration socketTimeout;
    /** PEM file of the CA that signed the server's certificate (empty: the JVM's trust store). */
    private String tlsCaFile;
    /** PEM client certificate, for servers with tls-auth-clients yes. */
    private String tlsCertFile;
    /** Unencrypted PKCS#8 or RSA key of the client certificate. */
    private String tlsKeyFile;
    /** The server's certificate must name the host connected to. Default true. */
    private Boolean tlsVerifyHostname;
    /** Comma-separated host:port list of Redis Sentinels. */
    private String sentinels;
    /** The name the Sentinels monitor the master under. */
    private String masterName;
    /** Replicas each state change waits for (WAIT) before it counts as done. Default 0. */
    private Integer replicaAcks;
    /** How long a write waits for replicaAcks replicas. Default 1s. */
    private Duration replicaAcksTimeout;

    public String getUrl() {
      return url;
    }

    public void setUrl(String url) {
      this.url = url;
    }

    public Boolean getRequireNoeviction() {
      return requireNoeviction;
    }

    public void setRequireNoeviction(Boolean requireNoeviction) {
      this.requireNoeviction = requireNoeviction;
    }

    public Duration getConnectTimeout() {
      return connectTimeout;
    }

    public void setConnectTimeout(Duration connectTimeout) {
      this.connectTimeout = connectTimeout;
    }

    public Duration getSocketTimeout() {
      return socketTimeout;
    }

    public void setSocketTimeout(Duration socketTimeout) {
      this.socketTimeout = socketTimeout;
    }

    public String getTlsCaFile() {
      return tlsCaFile;
    }

    public void setTlsCaFile(String tlsCaFile) {
      this.tlsCaFile = tlsCaFile;
    }

    public String getTlsCertFile() {
      return tlsCertFile;
    }

    public void setTlsCertFile(String tlsCertFile) {
      this.tlsCertFile = tlsCertFile;
    }

    public String getTlsKeyFile() {
      return tlsKeyFile;
    }

    public void setTlsKeyFile(String tlsKeyFile) {
      this.tlsKeyFile = tlsKeyFile;
    }

    public Boolean getTlsVerifyHostname() {
      return tlsVerifyHostname;
    }

    public void setTlsVerifyHostname(Boolean tlsVerifyHostname) {
      this.tlsVerifyHostname = tlsVerifyHostname;
    }

    public String getSentinels() {
      return sentinels;
    }

    public void setSentinels(String sentinels) {
      this.sentinels = sentinels;
    }

    public String getMasterName() {
      return masterName;
    }

    public void setMasterName(String masterName) {
      this.masterName = masterName;
    }

    public Integer getReplicaAcks() {
      return replicaAcks;
    }

    public void setReplicaAcks(Integer replicaAcks) {
      this.replicaAcks = replicaAcks;
    }

    public Duration getReplicaAcksTimeout() {
      return replicaAcksTimeout;
    }

    public void setReplicaAcksTimeout(Duration replicaAcksTimeout) {
      this.replicaAcksTimeout = replicaAcksTimeout;
    }

    /**
     * Comma-separated host:port list of a Redis Cluster's seed nodes: the cluster client, which
     * follows redirects, instead of url. Empty: no cluster.
     */
    private String cluster;

    public String getCluster() {
      return cluster;
    }

    public void setCluster(String cluster) {
      this.cluster = cluster;
    }
  }

  /** The queue (conf/delayq.yml {@code queue.*}). */
  public static class Queue {
    /** The queue's name; its keys are keyPrefix:{name}:suffix. Default "default". */
    private String name;
    /** Lets several tenants share one Redis. Default "delayq". */
    private String keyPrefix;
    /** Largest payload accepted at enqueue, in bytes of its JSON text. Default 1048576. */
    private Integer maxPayloadBytes;
    /** How long a caller-chosen id stays taken after its job ended (0: off). Default 24h. */
    private Duration idRetention;
    /**
     * Slots the queue is spread over, {name#0} to {name#K-1} (on a cluster: over its masters);
     * every process of the queue must use the same. Default 1.
     */
    private Integer shards;
    /**
     * How long a due job whose type no live worker has a handler for waits for one before it goes
     * to dead. Default 1h.
     */
    private Duration handlerWait;
    /** The largest result a handler may end with, as JSON bytes. Default 65536. */
    private Integer maxResultBytes;

    public Integer getMaxResultBytes() {
      return maxResultBytes;
    }

    public void setMaxResultBytes(Integer maxResultBytes) {
      this.maxResultBytes = maxResultBytes;
    }

    public Duration getHandlerWait() {
      return handlerWait;
    }

    public void setHandlerWait(Duration handlerWait) {
      this.handlerWait = handlerWait;
    }

    public Integer getShards() {
      return shards;
    }

    public void setShards(Integer shards) {
      this.shards = shards;
    }

    public Duration getIdRetention() {
      return idRetention;
    }

    public void setIdRetention(Duration idRetention) {
      this.idRetention = idRetention;
    }

    public String getName() {
      return name;
    }

    public void setName(String name) {
      this.name = name;
    }

    public String getKeyPrefix() {
      return keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
      this.keyPrefix = keyPrefix;
    }

    public Integer getMaxPayloadBytes() {
      return maxPayloadBytes;
    }

    public void setMaxPayloadBytes(Integer maxPayloadBytes) {
      this.maxPayloadBytes = maxPayloadBytes;
    }
  }

  /** The in-app worker (conf/delayq.yml {@code worker.*}, and enabled). */
  public static class Worker {
    /**
     * Run the app's JobHandler beans in this app, on the worker engine of the supervised
     * workers. An app killed with -9 has its jobs taken back by the scheduler's recoverer once
     * its heartbeat expires (heartbeatTtl), not at once as a supervisor would. Default false.
     */
    private boolean enabled;
    /** Consumer threads, each running one job at a time. Default 8. */
    private Integer threads;
    /** How long a consumer blocks waiting for a job before it checks for shutdown. Default 1s. */
    private Duration pollTimeout;
    /** Most due jobs a consumer takes in one call when a backlog waits. Default 32. */
    private Integer prefetch;
    /** Most record bytes one claim pulls from Redis at once. Default 4194304. */
    private Integer claimMaxBytes;
    /** Consumers say they are alive this often. Default 5s. */
    private Duration heartbeatInterval;
    /** Consumers are taken for gone this long after their last heartbeat. Default 30s. */
    private Duration heartbeatTtl;
    /** A job's time limit unless its handler sets another; it is then interrupted. Default 60s. */
    private Duration jobTimeout;
    /** A handler still running this long after its interruption stops the worker. Default 10s. */
    private Duration interruptGrace;
    /** Deliveries lost with their worker after which a job goes to dead. Default 3. */
    private Integer poisonPillAfter;
    /** At context shutdown the worker stops claiming and waits this long for running jobs. Default 25s. */
    private Duration drainTimeout;
    /**
     * The queues the worker serves with their weights, "critical:6,default:3,low:1" (queue.name
     * must be one of them). Default: queue.name alone.
     */
    private String queues;
    /** true: the queues' order is a strict priority instead of weights. Default false. */
    private Boolean strict;

    public String getQueues() {
      return queues;
    }

    public void setQueues(String queues) {
      this.queues = queues;
    }

    public Boolean getStrict() {
      return strict;
    }

    public void setStrict(Boolean strict) {
      this.strict = strict;
    }

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public Integer getThreads() {
      return threads;
    }

    public void setThreads(Integer threads) {
      this.threads = threads;
    }

    public Duration getPollTimeout() {
      return pollTimeout;
    }

    public void setPollTimeout(Duration pollTimeout) {
      this.pollTimeout = pollTimeout;
    }

    public Integer getClaimMaxBytes() {
      return claimMaxBytes;
    }

    public void setClaimMaxBytes(Integer claimMaxBytes) {
      this.claimMaxBytes = claimMaxBytes;
    }

    public Integer getPrefetch() {
      return prefetch;
    }

    public void setPrefetch(Integer prefetch) {
      this.prefetch = prefetch;
    }

    public Duration getHeartbeatInterval() {
      return heartbeatInterval;
    }

    public void setHeartbeatInterval(Duration heartbeatInterval) {
      this.heartbeatInterval = heartbeatInterval;
    }

    public Duration getHeartbeatTtl() {
      return heartbeatTtl;
    }

    public void setHeartbeatTtl(Duration heartbeatTtl) {
      this.heartbeatTtl = heartbeatTtl;
    }

    public Duration getJobTimeout() {
      return jobTimeout;
    }

    public void setJobTimeout(Duration jobTimeout) {
      this.jobTimeout = jobTimeout;
    }

    public Duration getInterruptGrace() {
      return interruptGrace;
    }

    public void setInterruptGrace(Duration interruptGrace) {
      this.interruptGrace = interruptGrace;
    }

    public Integer getPoisonPillAfter() {
      return poisonPillAfter;
    }

    public void setPoisonPillAfter(Integer poisonPillAfter) {
      this.poisonPillAfter = poisonPillAfter;
    }

    public Duration getDrainTimeout() {
      return drainTimeout;
    }

    public void setDrainTimeout(Duration drainTimeout) {
      this.drainTimeout = drainTimeout;
    }
  }

  /** The scheduler engine in the app (conf/delayq.yml {@code scheduler.*}, and enabled). */
  public static class Scheduler {
    /**
     * Run the scheduler engine in this app: due jobs move to ready, expired consumers' jobs are
     * recovered and schedules tick with no scheduler process. Instances on one queue elect one
     * lease holder; the others stand by; shutdown gives the lease back at once. Default false.
     */
    private boolean enabled;
    /** The most ids one forward call moves from delayed to ready. Default 1000. */
    private Integer batchSize;
    /** The lease lapses this long after its holder last renewed it (it died); a standby then takes it. Default 10s. */
    private Duration leaseTtl;
    /** A standby forwards a due job itself once it is this overdue. Default 20ms. */
    private Duration standbyGrace;
    /** How often consumers whose heartbeat expired are looked for. Default 1s. */
    private Duration recoverInterval;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public Integer getBatchSize() {
      return batchSize;
    }

    public void setBatchSize(Integer batchSize) {
      this.batchSize = batchSize;
    }

    public Duration getLeaseTtl() {
      return leaseTtl;
    }

    public void setLeaseTtl(Duration leaseTtl) {
      this.leaseTtl = leaseTtl;
    }

    public Duration getStandbyGrace() {
      return standbyGrace;
    }

    public void setStandbyGrace(Duration standbyGrace) {
      this.standbyGrace = standbyGrace;
    }

    public Duration getRecoverInterval() {
      return recoverInterval;
    }

    public void setRecoverInterval(Duration recoverInterval) {
      this.recoverInterval = recoverInterval;
    }
  }

  /** Retries (conf/delayq.yml {@code retry.*}). */
  public static class Retry {
    /** Attempts of a job unless the producer sets maxAttempts; then it goes to dead. Default 5. */
    private Integer maxAttempts;
    /** Backoff before attempt n+1: baseDelay * 2^(n-1), at most maxDelay. Default 2s. */
    private Duration baseDelay;
    /** Longest backoff. Default 1h. */
    private Duration maxDelay;
    /** +/- this fraction of each backoff, at random. Default 0.2. */
    private Double jitter;

    public Integer getMaxAttempts() {
      return maxAttempts;
    }

    public void setMaxAttempts(Integer maxAttempts) {
      this.maxAttempts = maxAttempts;
    }

    public Duration getBaseDelay() {
      return baseDelay;
    }

    public void setBaseDelay(Duration baseDelay) {
      this.baseDelay = baseDelay;
    }

    public Duration getMaxDelay() {
      return maxDelay;
    }

    public void setMaxDelay(Duration maxDelay) {
      this.maxDelay = maxDelay;
    }

    public Double getJitter() {
      return jitter;
    }

    public void setJitter(Double jitter) {
      this.jitter = jitter;
    }
  }

  /**
   * The actuator's {@code delayq} health (the starter's own keys: no conf/delayq.yml section, as
   * no supervised process has an actuator).
   */
  public static class Health {
    /**
     * DOWN once the oldest due job has waited longer than this past its due time (nothing serves
     * the queue, or too little); 0 turns the check off. Default 60s.
     */
    private Duration maxOverdue = Duration.ofSeconds(60);

    public Duration getMaxOverdue() {
      return maxOverdue;
    }

    public void setMaxOverdue(Duration maxOverdue) {
      if (maxOverdue == null || maxOverdue.isNegative()) {
        throw new IllegalArgumentException("delayq.health.max-overdue must be 0 (off) or more, got " + maxOverdue);
      }
      this.maxOverdue = maxOverdue;
    }
  }

  /** The {@code DelayQueue} bean's enqueues (the starter's own keys: no conf/delayq.yml section). */
  public static class Producer {
    /**
     * Inside a Spring-managed transaction, hold each enqueue until the transaction commits and send
     * nothing when it rolls back (needs spring-tx; outside a transaction enqueues go at once). Default true.
     */
    private boolean afterCommit = true;

    public boolean isAfterCommit() {
      return afterCommit;
    }

    public void setAfterCommit(boolean afterCommit) {
      this.afterCommit = afterCommit;
    }
  }
}

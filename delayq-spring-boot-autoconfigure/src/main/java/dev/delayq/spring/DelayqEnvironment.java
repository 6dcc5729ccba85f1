package dev.delayq.spring;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The starter's {@code delayq.*} properties as the DELAYQ_* variables that conf/delayq.yml
 * documents, so that ConfigLoader reads an app's settings exactly as it reads a process's
 * environment: one loader, one set of checks and defaults.
 */
final class DelayqEnvironment {
  private DelayqEnvironment() {}

  /** The set keys as the DELAYQ_* variables conf/delayq.yml documents, for ConfigLoader. */
  static Map<String, String> of(DelayqProperties p) {
    Map<String, String> env = new LinkedHashMap<>();
    put(env, "REDIS_URL", p.getRedis().getUrl());
    put(env, "REDIS_REQUIRE_NOEVICTION", p.getRedis().getRequireNoeviction());
    put(env, "REDIS_CONNECT_TIMEOUT", p.getRedis().getConnectTimeout());
    put(env, "REDIS_SOCKET_TIMEOUT", p.getRedis().getSocketTimeout());
    put(env, "REDIS_TLS_CA_FILE", p.getRedis().getTlsCaFile());
    put(env, "REDIS_TLS_CERT_FILE", p.getRedis().getTlsCertFile());
    put(env, "REDIS_TLS_KEY_FILE", p.getRedis().getTlsKeyFile());
    put(env, "REDIS_TLS_VERIFY_HOSTNAME", p.getRedis().getTlsVerifyHostname());
    put(env, "REDIS_SENTINELS", p.getRedis().getSentinels());
    put(env, "REDIS_MASTER_NAME", p.getRedis().getMasterName());
    put(env, "REDIS_REPLICA_ACKS", p.getRedis().getReplicaAcks());
    put(env, "REDIS_REPLICA_ACKS_TIMEOUT", p.getRedis().getReplicaAcksTimeout());
    put(env, "REDIS_CLUSTER", p.getRedis().getCluster());
    put(env, "QUEUE_NAME", p.getQueue().getName());
    put(env, "QUEUE_KEY_PREFIX", p.getQueue().getKeyPrefix());
    put(env, "QUEUE_MAX_PAYLOAD_BYTES", p.getQueue().getMaxPayloadBytes());
    put(env, "QUEUE_ID_RETENTION", p.getQueue().getIdRetention());
    put(env, "QUEUE_SHARDS", p.getQueue().getShards());
    put(env, "QUEUE_HANDLER_WAIT", p.getQueue().getHandlerWait());
    put(env, "QUEUE_MAX_RESULT_BYTES", p.getQueue().getMaxResultBytes());
    put(env, "WORKER_THREADS", p.getWorker().getThreads());
    put(env, "WORKER_POLL_TIMEOUT", p.getWorker().getPollTimeout());
    put(env, "WORKER_PREFETCH", p.getWorker().getPrefetch());
    put(env, "WORKER_CLAIM_MAX_BYTES", p.getWorker().getClaimMaxBytes());
    put(env, "WORKER_HEARTBEAT_INTERVAL", p.getWorker().getHeartbeatInterval());
    put(env, "WORKER_HEARTBEAT_TTL", p.getWorker().getHeartbeatTtl());
    put(env, "WORKER_JOB_TIMEOUT", p.getWorker().getJobTimeout());
    put(env, "WORKER_INTERRUPT_GRACE", p.getWorker().getInterruptGrace());
    put(env, "WORKER_POISON_PILL_AFTER", p.getWorker().getPoisonPillAfter());
    put(env, "WORKER_DRAIN_TIMEOUT", p.getWorker().getDrainTimeout());
    put(env, "WORKER_QUEUES", p.getWorker().getQueues());
    put(env, "WORKER_STRICT", p.getWorker().getStrict());
    put(env, "SCHEDULER_BATCH_SIZE", p.getScheduler().getBatchSize());
    put(env, "SCHEDULER_LEASE_TTL", p.getScheduler().getLeaseTtl());
    put(env, "SCHEDULER_STANDBY_GRACE", p.getScheduler().getStandbyGrace());
    put(env, "SCHEDULER_RECOVER_INTERVAL", p.getScheduler().getRecoverInterval());
    put(env, "RETRY_MAX_ATTEMPTS", p.getRetry().getMaxAttempts());
    put(env, "RETRY_BASE_DELAY", p.getRetry().getBaseDelay());
    put(env, "RETRY_MAX_DELAY", p.getRetry().getMaxDelay());
    put(env, "RETRY_JITTER", p.getRetry().getJitter());
    return env;
  }

  private static void put(Map<String, String> env, String key, Object value) {
    if (value != null) {
      // durations as milliseconds, which conf/delayq.yml's duration syntax reads back exactly
      env.put("DELAYQ_" + key, value instanceof Duration d ? d.toMillis() + "ms" : value.toString());
    }
  }
}

/**
 * Internal: the job statistics a worker records and flushes to Redis, and the latency buckets
 * they use. Not for apps (an app reads metrics through Micrometer or the supervisor's /metrics).
 */
package dev.delayq.metrics;

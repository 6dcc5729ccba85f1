/**
 * Internal: the runtime of delayq's long-running threads and processes (the shared loop
 * {@link dev.delayq.process.RunUntilShutdown}, outage logging and backoff, shutdown signals,
 * the crash record, log-safe text). Not for apps.
 */
package dev.delayq.process;

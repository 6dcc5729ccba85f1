/**
 * The job SPI a handler author implements and reads: {@link dev.delayq.job.JobHandler},
 * {@link dev.delayq.job.JobContext}, {@link dev.delayq.job.JobResult},
 * {@link dev.delayq.job.RetryPolicy}. Public and kept compatible.
 */
package dev.delayq.job;

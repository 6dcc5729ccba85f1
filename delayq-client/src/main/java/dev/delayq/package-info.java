/**
 * The producer's API: {@link dev.delayq.DelayQueue} (enqueue, change, cancel, inspect),
 * {@link dev.delayq.JobOptions}, {@link dev.delayq.Schedules}, workflows ({@link dev.delayq.Batch}, jobs
 * that wait for jobs, chains, fan-ins, results by id) and the results they answer with.
 * Public and kept compatible; the job SPI is {@code dev.delayq.job}.
 */
package dev.delayq;

/**
 * The scheduler engine: {@link dev.delayq.scheduler.Scheduler} (for an app, {@code Scheduler.inApp})
 * is its public face; everything else here is package-private. Per queue, {@code ShardLeases}
 * decides which shards this scheduler serves, {@code SchedulerLoop} forwards ({@code Forwarder}),
 * recovers ({@code Recoverer}) and trims ({@code IdRetentionTrimmer}) them, {@code WakeListener}
 * and {@code StandbyWakes} wake it, and {@code ScheduleTicker} turns schedules into jobs.
 */
package dev.delayq.scheduler;

package dev.delayq.redis;

/**
 * What {@link #changePending} answered: {@code place} is where the job is now ("delayed" or
 * "ready", with its due time), or why nothing changed ("running", "dead", "unknown",
 * "malformed: why"; {@code dueAt} -1).
 */
public record PendingChange(String place, long dueAt) {}

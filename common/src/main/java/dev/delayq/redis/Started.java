package dev.delayq.redis;

/** What {@link #start} did: the acknowledgement folded into it, and whether the job may run. */
public record Started(Ack ack, boolean started) {}

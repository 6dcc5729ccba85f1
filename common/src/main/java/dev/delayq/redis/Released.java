package dev.delayq.redis;

/** What {@link #releaseClaimed} did. */
public record Released(Ack ack, int released) {}

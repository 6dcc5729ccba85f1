package dev.delayq.redis;

/** What {@link #resume} did: whether the scope was paused, and how many held jobs went back to ready. */
public record Resumed(boolean wasPaused, int givenBack) {}

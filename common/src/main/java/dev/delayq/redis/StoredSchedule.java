package dev.delayq.redis;

/** A schedule as stored: its definition's text, next tick (or -1), latest created tick (or -1). */
public record StoredSchedule(String id, String definition, long nextTick, long lastTick) {}

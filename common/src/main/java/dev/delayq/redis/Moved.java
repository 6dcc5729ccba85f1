package dev.delayq.redis;

/** What a move to delayed did; DEAD: the record could not be read or written back, it went to dead. */
public enum Moved { MOVED, FENCED, DEAD }

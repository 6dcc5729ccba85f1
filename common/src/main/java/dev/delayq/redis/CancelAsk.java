package dev.delayq.redis;

/** What asking to cancel a running job found. */
public enum CancelAsk { ASKED, PENDING, UNKNOWN, DEAD }

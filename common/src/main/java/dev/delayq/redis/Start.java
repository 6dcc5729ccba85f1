package dev.delayq.redis;

/** One consumer's start: its next delivery, and the finished one to acknowledge first (or null). */
public record Start(String consumerId, Delivery delivery, Delivery ackFirst) {}

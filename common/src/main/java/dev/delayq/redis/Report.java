package dev.delayq.redis;

import java.util.List;

/** One consumer's part of an {@link #ackAll} call: the delivery it started (or null), the ones it finished. */
public record Report(String consumerId, Delivery started, List<Delivery> finished) {}

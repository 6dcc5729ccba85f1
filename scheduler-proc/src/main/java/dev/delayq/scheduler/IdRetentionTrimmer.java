package dev.delayq.scheduler;

import dev.delayq.redis.RedisBroker;

/**
 * Frees the caller-chosen ids whose queue.idRetention window has passed, a bounded chunk per
 * call (forgetEnded.lua), oldest first. An id past its window is already free to enqueue.lua
 * (it checks the expiry itself); trimming only gives the memory back.
 */
final class IdRetentionTrimmer {
  static final int CHUNK = 1000;

  private final RedisBroker broker;

  IdRetentionTrimmer(RedisBroker broker) {
    this.broker = broker;
  }

  /** Frees one chunk; true when it came back full (more may be due: call again soon). */
  boolean tick() {
    return broker.forgetEnded(CHUNK) == CHUNK;
  }
}

package dev.delayq.redis;

/**
 * What taking back a consumer's deliveries did: {@code uncharged} went back to ready as they
 * were (never started, or finished before the running one); {@code charged} had its handler
 * running and counted an attempt and a lost delivery, {@code deadLettered} of those went to dead.
 */
public record Requeued(int uncharged, int charged, int deadLettered, boolean consumerAlive, int acknowledged) {
  public Requeued(int uncharged, int charged, int deadLettered, boolean consumerAlive) {
    this(uncharged, charged, deadLettered, consumerAlive, 0);
  }

  public int taken() {
    return uncharged + charged;
  }
}

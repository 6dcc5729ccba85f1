package dev.delayq;

import dev.delayq.redis.EnqueueCode;
import dev.delayq.redis.Enqueued;
import java.util.Base64;
import java.util.concurrent.ThreadLocalRandom;

/** The ids delayq generates for jobs enqueued without one, and when a generated id must be drawn again. */
final class JobIds {
  private JobIds() {}

  /** The first byte's top six bits that URL-safe base64 writes as '-' (62). */
  private static final int DASH_FIRST = 62 << 2;

  /**
   * 72 random bits, URL-safe, 12 characters: an id sits in the jobs hash (where 12 characters
   * fill a 16-byte allocation, 13 to 20 a 24-byte one) and in its place (a wheel bucket), so each
   * character counts (docs/redis-layout.md). Ids need to be unique, not secret, so the fast
   * thread-local generator is enough; and an id that meets a job it does not belong to (one in
   * 2^72 per stored job) is never taken for that job: the enqueue answers that the id is held
   * ({@link #collided}) and is sent again under a new id. An id never begins with '-', which a
   * command line would read as an option ({@code delayq inspect -q8Z...} is -q with a value): the
   * first character's top bit is flipped, so 'e' comes first twice as often, 1/64 of a bit less.
   */
  static String newId() {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    byte[] bytes = new byte[9];
    long a = random.nextLong();
    for (int i = 0; i < 8; i++) {
      bytes[i] = (byte) (a >>> (8 * i));
    }
    bytes[8] = (byte) random.nextInt();
    if ((bytes[0] & 0xFC) == DASH_FIRST) {
      bytes[0] ^= (byte) 0x80;
    }
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /** A generated id met a stored job's (pending, dead, or an id kept after its end): not this job's. */
  static boolean collided(Enqueued e) {
    return e.code() == EnqueueCode.PENDING || e.code() == EnqueueCode.DEAD
        || e.code() == EnqueueCode.ENDED;
  }
}

package dev.delayq.redis;

import java.util.Objects;

/**
 * One claim of a job by one consumer, as its element in that consumer's in-flight list:
 * {@code <token>|<id>}. The token comes from the queue's deliveries counter and is never reused,
 * so an outcome of an old delivery (the job was taken back, and perhaps claimed again by the same
 * consumer) matches no element and is refused. A bare id in the list, with token 0 here, is a
 * claim BLMOVE made and the claim script has not yet turned into a delivery: nothing ran it.
 * (A value, like a record; a class only so that the element, sent with every outcome, is built
 * once.)
 */
public final class Delivery {
  private static final char SEPARATOR = '|';

  private final long token;
  private final String id;
  private final String element;
  private final boolean cancelled;
  /** What the claimed record said of its id: 'k' it stays taken, 'f' it does not, 'u' not known. */
  private final char keepsId;

  public Delivery(long token, String id) {
    this(token, id, false, 'u');
  }

  private Delivery(long token, String id, boolean cancelled, char keepsId) {
    if (id == null || id.isEmpty() || token < 0) {
      throw new IllegalArgumentException("a delivery needs an id and a token >= 0, got " + token + "/" + id);
    }
    this.token = token;
    this.id = id;
    this.element = token == 0 ? id : token + "|" + id;
    this.cancelled = cancelled;
    this.keepsId = keepsId;
  }

  /**
   * This delivery, knowing from its claimed record whether the id stays taken after it
   * ({@code "k":1}), so the acknowledging script need not read the record again to know (a
   * running job's record never changes that). A null record (not pulled) leaves it unknown.
   * Equal to this delivery.
   */
  public Delivery withRecord(String raw) {
    if (raw == null || token == 0) {
      return this;
    }
    return new Delivery(token, id, cancelled, JobRecord.keepsId(raw) ? 'k' : 'f');
  }

  /**
   * This delivery, acknowledged as cancelled (an operator cancelled its run): the acknowledging
   * scripts then record "cancelled", not "done", for a kept id. Equal to this delivery.
   */
  public Delivery endedCancelled() {
    return new Delivery(token, id, true, keepsId);
  }

  public boolean isCancelled() {
    return cancelled;
  }

  /**
   * What a crash record holds of a finished delivery: the element, prefixed '!' (no job id holds
   * it) when cancelled.
   */
  public String ackElement() {
    return cancelled ? "!" + element : element;
  }

  /**
   * This delivery's outcome as every acknowledging script (ack, claimReady, start,
   * releaseClaimed: include/ended.lua) takes it, one character beside its element and its id:
   * lower case done, upper case cancelled; 'k' the claimed record keeps its id, 'f' it does not,
   * 'u' not known (the script reads the record).
   */
  public char ackHint() {
    return cancelled ? Character.toUpperCase(keepsId) : keepsId;
  }

  public long token() {
    return token;
  }

  public String id() {
    return id;
  }

  /** The list element: {@code <token>|<id>}, or the bare id for token 0. */
  public String element() {
    return element;
  }

  /** Reads a list element; one without a token (no '|', which no job id may hold) is token 0. */
  public static Delivery parse(String element) {
    int bar = element.indexOf(SEPARATOR);
    if (bar > 0 && bar <= 18 && isDigits(element, bar)) {
      return new Delivery(Long.parseLong(element, 0, bar, 10), element.substring(bar + 1));
    }
    return new Delivery(0, element);
  }

  /** The job id of a list element. */
  public static String idOf(String element) {
    return parse(element).id();
  }

  private static boolean isDigits(String s, int end) {
    for (int i = 0; i < end; i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Delivery d && d.token == token && d.id.equals(id);
  }

  @Override
  public int hashCode() {
    return Objects.hash(token, id);
  }

  @Override
  public String toString() {
    return element;
  }
}

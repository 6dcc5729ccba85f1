package dev.delayq.redis;

import java.util.List;

/**
 * ListSearch finds an id in a list of any length (ready, held) for the read side, a stretch of
 * {@value #STRETCH} elements a call (findInList.lua), so no call blocks Redis for a walk of
 * millions as one LPOS would. The calls are not one instant: an id moving meanwhile may be missed,
 * and the caller reads the job's places again when it is.
 */
final class ListSearch {
  /** Elements one call compares: an LRANGE of them and the compares, about a millisecond of Redis time. */
  static final int STRETCH = 5_000;
  /**
   * Elements each stretch repeats of the one before: an element removed from the left of the id
   * meanwhile (a cancel's LREM) moves the id left by one, and this many such moves between two
   * calls still leave it in the next stretch. Pushes on the left move it right, ahead of the search.
   */
  static final int OVERLAP = 256;

  private ListSearch() {}

  /** The index (from the left) of the id's first place in {@code list} from {@code from} on, or null. */
  static Long find(Scripts scripts, String list, String id, long from) {
    while (true) {
      List<?> r = (List<?>) scripts.eval(Script.FIND_IN_LIST, List.of(list),
          List.of(id, Long.toString(from), Integer.toString(STRETCH)));
      long at = (Long) r.get(0);
      if (at >= 0) {
        return at;
      }
      long length = (Long) r.get(1);
      if (from + STRETCH >= length) {
        return null;
      }
      from += STRETCH - OVERLAP;
    }
  }
}

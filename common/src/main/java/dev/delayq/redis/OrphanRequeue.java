package dev.delayq.redis;

/** What requeueOrphan.lua did with a record whose id was in no structure. */
public enum OrphanRequeue {
  /** Not an orphan when the script looked (no record, or its id is somewhere): nothing changed. */
  NOT_ORPHAN,
  /** Put back on ready. */
  REQUEUED,
  /** Its record cannot be read: dead-lettered instead. */
  DEAD_LETTERED;

  static OrphanRequeue of(long code) {
    return switch ((int) code) {
      case 0 -> NOT_ORPHAN;
      case 1 -> REQUEUED;
      case 2 -> DEAD_LETTERED;
      default -> throw new IllegalStateException("requeueOrphan.lua answered " + code);
    };
  }
}

package dev.delayq.scheduler;

import dev.delayq.Schedules;
import dev.delayq.process.LogText;
import dev.delayq.redis.StoredSchedule;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The schedules one ticker could not compute (an unknown time zone, an undecodable cron or id,
 * JSON another client wrote, whatever was thrown): each is said once per definition, at WARN, and
 * stepped over, so that the other schedules keep ticking on time. A definition saved again is
 * tried afresh; a schedule removed is simply no longer met. Used by one ticker thread.
 */
final class BrokenSchedules {
  private static final Logger log = LoggerFactory.getLogger(ScheduleTicker.class);

  /** Schedule id -> the definition it could not be computed from. */
  private final Map<String, String> definitions = new HashMap<>();

  /** True when {@code stored} is the very definition that failed before: not worth computing again. */
  boolean stillBroken(StoredSchedule stored) {
    return stored.definition().equals(definitions.get(stored.id()));
  }

  /** Whether the schedule {@code id} is stepped over. */
  boolean has(String id) {
    return definitions.containsKey(id);
  }

  int size() {
    return definitions.size();
  }

  /** {@code stored} could not be computed: says so the first time for its definition. */
  void failed(StoredSchedule stored, RuntimeException e) {
    if (!stored.definition().equals(definitions.put(stored.id(), stored.definition()))) {
      log.warn("schedule {} is broken, it does not tick (the others do) until it is saved again or removed: {}",
          LogText.escape(stored.id()), LogText.escape(Schedules.Broken.reasonOf(e)));
    }
  }

  /** {@code id} was computed: it is not (or no longer) broken. */
  void computed(String id) {
    if (definitions.remove(id) != null) {
      log.info("schedule {} ticks again", LogText.escape(id));
    }
  }
}

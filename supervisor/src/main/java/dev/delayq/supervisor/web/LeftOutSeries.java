package dev.delayq.supervisor.web;

import dev.delayq.process.LogText;
import io.prometheus.metrics.model.snapshots.Labels;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The series a scrape leaves out because the stats hash holds a value no delayq writer writes (a
 * negative count or a field that is no integer, planted by another client): the exposition
 * refuses a negative point, a non-integer would be shown as a made-up 0, and one such value must
 * not turn the whole scrape into an error. Each series is said once, at WARN,
 * naming it; the scrape answers with the rest.
 */
final class LeftOutSeries {
  private static final Logger log = LoggerFactory.getLogger(LeftOutSeries.class);

  private final Set<String> said = ConcurrentHashMap.newKeySet();

  /**
   * Builds the point of {@code metric}{@code labels} and hands it to {@code into}; leaves it out
   * when a field of it holds no integer ({@code unreadable}) or the exposition refuses the point.
   */
  <T> void add(String metric, Labels labels, boolean unreadable, Supplier<T> point, Consumer<T> into) {
    if (unreadable) {
      leftOut(metric, labels, "a field of it holds no integer");
      return;
    }
    T built;
    try {
      built = point.get();
    } catch (IllegalArgumentException e) {
      leftOut(metric, labels, e.getMessage());
      return;
    }
    into.accept(built);
  }

  private void leftOut(String metric, Labels labels, String why) {
    if (said.add(metric + labels)) {
      log.warn("web: /metrics leaves out {}{}: its value in the stats hash cannot be read ({}); the other series"
          + " are served", metric, LogText.escape(labels), LogText.escape(why));
    }
  }
}

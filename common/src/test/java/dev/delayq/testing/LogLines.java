package dev.delayq.testing;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.ArrayList;
import java.util.List;

/**
 * The lines a test's {@link ListAppender} caught so far, copied under the appender's own lock:
 * the process's threads (heartbeat, ack sender, consumers) go on logging while a test reads, and
 * a stream over the appender's bare list then fails with ConcurrentModificationException.
 */
public final class LogLines {
  private LogLines() {}

  public static List<ILoggingEvent> of(ListAppender<ILoggingEvent> appender) {
    synchronized (appender) { // AppenderBase.doAppend holds it while it adds a line
      return new ArrayList<>(appender.list);
    }
  }
}

package dev.delayq.supervisor.host;

import sun.misc.Signal;

/**
 * SIGTERM and SIGINT (Ctrl-C) to the supervisor mean {@code stop}. The handlers only post an
 * event; the control thread does the work. Replacing the JVM's own handlers also keeps it from
 * running shutdown hooks and exiting before the children are drained.
 */
public final class Signals {
  private Signals() {}

  public static void onStop(java.util.function.Consumer<String> stop) {
    for (String name : new String[] {"TERM", "INT"}) {
      Signal.handle(new Signal(name), signal -> stop.accept("SIG" + signal.getName()));
    }
  }
}

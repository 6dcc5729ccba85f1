package dev.delayq.supervisor;

import java.util.Locale;

/** What a child process is; its lower-case name is what {@code status --json} shows. */
enum Role {
  REDIS, SCHEDULER, WORKER;

  String json() {
    return name().toLowerCase(Locale.ROOT);
  }
}

package dev.delayq.supervisor.host;

/**
 * A start that cannot go on, for a reason the operator fixes (Redis unreachable, a password
 * refused, a port taken): said once on the terminal, with what to change and no stack trace,
 * and the supervisor exits 1 before any job could have been touched.
 */
public final class StartRefusedException extends RuntimeException {
  StartRefusedException(String message) {
    super(message);
  }
}

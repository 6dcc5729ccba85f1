package dev.delayq.cli;

import dev.delayq.ChangeResult;

/** A command's refusal: its message is the one line the operator sees, with this exit code. */
final class CliException extends RuntimeException {
  private final int exitCode;

  CliException(int exitCode, String message) {
    super(message, null, false, false);
    this.exitCode = exitCode;
  }

  static CliException notFound(String message) {
    return new CliException(ExitCodes.FAILED, message);
  }

  /** A command given the id of a job the queue does not hold. */
  static CliException noSuchJob(String id, String queue) {
    return notFound(ChangeResult.noJobWithId(id) + " in queue " + queue);
  }

  static CliException badInput(String message) {
    return new CliException(ExitCodes.USAGE, message);
  }

  int exitCode() {
    return exitCode;
  }
}

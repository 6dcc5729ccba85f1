package dev.delayq.cli;

/** The exit codes every delayq command shares, and their lines for each command's help. */
final class ExitCodes {
  static final int OK = 0;
  /** Not found, refused, or the check found a breach. */
  static final int FAILED = 1;
  /** Bad usage or bad input: an unknown option, a bad duration, bad JSON, a bad config value. */
  static final int USAGE = 2;
  static final int REDIS = 3;

  static final String HEADING = "%nExit codes:%n";
  static final String OK_LINE = "0:done";
  static final String FAILED_LINE = "1:not found, refused, or failed";
  static final String USAGE_LINE = "2:bad usage or bad input (option, duration, JSON, config)";
  static final String REDIS_LINE = "3:Redis unreachable or failing";

  private ExitCodes() {}
}

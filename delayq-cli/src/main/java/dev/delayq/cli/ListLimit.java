package dev.delayq.cli;

import picocli.CommandLine.Option;

/** The -n/--limit option of the list commands (batch list, dead list), each mixing it in. */
final class ListLimit {
  @Option(names = {"-n", "--limit"}, paramLabel = "N", defaultValue = "50",
      description = "At most N to list (default: ${DEFAULT-VALUE}).")
  int limit;

  /** The limit given; below 1 it is refused as bad input. */
  int value() {
    if (limit < 1) {
      throw CliException.badInput("--limit must be at least 1, got " + limit);
    }
    return limit;
  }
}

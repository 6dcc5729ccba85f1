package dev.delayq.supervisor.host;

import java.io.IOException;

/**
 * A path delayq will not use because another user could read, replace or redirect it: a
 * directory of the home owned by someone else or writable by others, a symbolic link where a
 * file of delayq's own should be, a control socket another user bound. Its message names the
 * path, what is wrong with it and what the operator can do.
 */
public final class UntrustedPathException extends IOException {
  public UntrustedPathException(String message) {
    super(message);
  }
}

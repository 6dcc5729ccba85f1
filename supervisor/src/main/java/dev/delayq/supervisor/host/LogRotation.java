package dev.delayq.supervisor.host;

/**
 * How a child's log is kept: rotated when a write would take it past {@code maxBytes} (0: never),
 * keeping {@code backups} older files ({@code <child>.log.1} the newest), as supervisord's
 * {@code logfile_maxbytes} and {@code logfile_backups}.
 */
public record LogRotation(long maxBytes, int backups) {
  public LogRotation {
    if (maxBytes < 0 || backups < 0) {
      throw new IllegalArgumentException("maxBytes and backups must not be negative");
    }
  }
}

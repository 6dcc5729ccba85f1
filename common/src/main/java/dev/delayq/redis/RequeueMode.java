package dev.delayq.redis;

/** Why a consumer's jobs are taken back: it went silent, or its process is known to be gone. */
public enum RequeueMode {
  EXPIRED("expired"), GONE("gone");

  final String arg;

  RequeueMode(String arg) {
    this.arg = arg;
  }
}

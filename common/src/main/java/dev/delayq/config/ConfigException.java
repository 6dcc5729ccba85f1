package dev.delayq.config;

/** A configuration that cannot be used; the message names the key, the value and why. */
public final class ConfigException extends RuntimeException {
  public ConfigException(String message) {
    super(message);
  }
}

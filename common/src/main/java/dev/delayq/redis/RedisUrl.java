package dev.delayq.redis;

/**
 * Redis URLs as they may be shown: in a log line, an error, {@code status}. The password goes,
 * whatever characters it holds: a raw {@code /} or {@code @} in it (not percent-encoded, so not
 * a valid URL) still ends at the last {@code @}, since no host or port can hold one.
 */
public final class RedisUrl {
  private RedisUrl() {}

  /**
   * {@code redis://user:***@host:port/db}: everything between the user name and the last
   * {@code @} is replaced; userinfo without a colon is taken for a password as a whole.
   */
  public static String redact(String url) {
    if (url == null) {
      return null;
    }
    int scheme = url.indexOf("://");
    int start = scheme < 0 ? 0 : scheme + 3;
    int at = url.lastIndexOf('@');
    if (at < start) {
      return url;
    }
    int colon = url.indexOf(':', start);
    String user = colon >= 0 && colon < at ? url.substring(start, colon) + ":" : "";
    return url.substring(0, start) + user + "***" + url.substring(at);
  }
}

package dev.delayq.bench;

import dev.delayq.redis.Script;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;

/**
 * The slowest single Redis call of an operation, read from the server's own SLOWLOG: the server
 * times each command's execution (not the network), so a loaded client machine does not inflate
 * it. While open, commands slower than the threshold are logged (up to {@value #MAX_LEN} between
 * two resets); at close the server's own settings are put back. A standalone Redis only: a
 * cluster's slow log is per node.
 */
final class SlowLog implements AutoCloseable {
  /** Entries kept between two resets; one operation's calls over the threshold rarely come near. */
  static final int MAX_LEN = 1024;

  /** What the log held: the slowest entry's microseconds and command, and how many were logged. */
  record Slowest(long micros, String command, int entries, boolean full) {
    Map<String, Object> toMap(long thresholdUs) {
      Map<String, Object> out = new java.util.LinkedHashMap<>();
      out.put("slowest_call_us", micros);
      out.put("slowest_command", entries == 0 ? "none over " + thresholdUs + " us" : command);
      out.put("calls_over_threshold", entries);
      if (full) {
        out.put("slow_log_full", true);
      }
      return out;
    }
  }

  private static final Map<String, String> SCRIPT_BY_SHA = new HashMap<>();

  static {
    for (Script s : Script.values()) {
      SCRIPT_BY_SHA.put(s.sha(), s.toString());
    }
  }

  private final UnifiedJedis redis;
  private final long thresholdUs;
  private final String oldThreshold;
  private final String oldMaxLen;

  private SlowLog(UnifiedJedis redis, long thresholdUs) {
    this.redis = redis;
    this.thresholdUs = thresholdUs;
    this.oldThreshold = config("slowlog-log-slower-than");
    this.oldMaxLen = config("slowlog-max-len");
    redis.configSet("slowlog-log-slower-than", Long.toString(thresholdUs));
    redis.configSet("slowlog-max-len", Integer.toString(MAX_LEN));
    reset();
  }

  /** Logs every command slower than {@code thresholdUs} from now on, the log emptied. */
  static SlowLog open(UnifiedJedis redis, long thresholdUs) {
    return new SlowLog(redis, thresholdUs);
  }

  long thresholdUs() {
    return thresholdUs;
  }

  void reset() {
    redis.sendCommand(Protocol.Command.SLOWLOG, "RESET");
  }

  /**
   * The slowest entry since the last reset. An EVALSHA is named by its script
   * ({@code evalsha forwardDue}), any other command by its name and first key.
   */
  Slowest read() {
    List<?> entries = (List<?>) redis.sendCommand(Protocol.Command.SLOWLOG, "GET", Integer.toString(MAX_LEN));
    long max = 0;
    String command = "";
    for (Object e : entries) {
      List<?> entry = (List<?>) e;
      long micros = (Long) entry.get(2);
      if (micros >= max) {
        max = micros;
        command = describe((List<?>) entry.get(3));
      }
    }
    return new Slowest(max, command, entries.size(), entries.size() >= MAX_LEN);
  }

  /** A slow-log entry's arguments as one short phrase: the command, then the script or first key. */
  static String describe(List<?> args) {
    if (args.isEmpty()) {
      return "?";
    }
    String name = text(args.get(0)).toLowerCase(java.util.Locale.ROOT);
    if (args.size() < 2) {
      return name;
    }
    String second = text(args.get(1));
    if (name.equals("evalsha") || name.equals("evalsha_ro")) {
      return name + " " + SCRIPT_BY_SHA.getOrDefault(second.toLowerCase(java.util.Locale.ROOT), second);
    }
    return name + " " + (second.length() > 60 ? second.substring(0, 60) + "..." : second);
  }

  private String config(String name) {
    String value = redis.configGet(name).get(name);
    if (value == null) {
      throw new IllegalStateException("CONFIG GET " + name + " answered nothing");
    }
    return value;
  }

  private static String text(Object o) {
    return o instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(o);
  }

  @Override
  public void close() {
    redis.configSet("slowlog-log-slower-than", oldThreshold);
    redis.configSet("slowlog-max-len", oldMaxLen);
  }
}

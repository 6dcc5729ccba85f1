package dev.delayq.bench;

import dev.delayq.redis.Script;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;

/**
 * The slowest single Redis call of an operation, read from the server's own SLOWLOG: the server
 * times each command's execution (not the network), so a loaded client machine does not inflate
 * it. While open, commands slower than the threshold are logged (up to {@value #MAX_LEN} between
 * two looks); at close the server's own settings are put back. A standalone Redis only: a
 * cluster's slow log is per node.
 */
final class SlowLog implements AutoCloseable {
  /** Entries kept between two resets; one operation's calls over the threshold rarely come near. */
  static final int MAX_LEN = 1024;

  /**
   * What the log held: the slowest entry's microseconds and command, how many were logged, and
   * whether some were dropped before they were read ({@code lost}: then the slowest is of the rest).
   */
  record Slowest(long micros, String command, int entries, int over10ms, boolean lost) {
    Map<String, Object> toMap(long thresholdUs) {
      Map<String, Object> out = new java.util.LinkedHashMap<>();
      out.put("slowest_call_us", micros);
      out.put("slowest_command", entries == 0 ? "none over " + thresholdUs + " us" : command);
      out.put("calls_over_threshold", entries);
      // the goal's bound: a real cost is over it call after call, a stall of a shared host once
      out.put("calls_over_10ms", over10ms);
      if (lost) {
        out.put("slow_log_entries_lost", true);
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
  private long lastId = -1;
  private long max;
  private String command = "";
  private int entries;
  private int over10ms;
  private boolean lost;

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

  /** Empties the log and forgets what was read from it. */
  synchronized void reset() {
    redis.sendCommand(Protocol.Command.SLOWLOG, "RESET");
    lastId = -1;
    max = 0;
    command = "";
    entries = 0;
    over10ms = 0;
    lost = false;
  }

  /**
   * Runs {@code call} while a thread reads the log every 100 ms, so that the slowest call of a
   * long operation is kept however many calls pass the threshold (the log holds {@value #MAX_LEN}).
   */
  <T> T watching(Callable<T> call) throws Exception {
    java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
    Thread poller = new Thread(() -> {
      while (!done.get()) {
        poll();
        try {
          Thread.sleep(100);
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "bench-slowlog");
    poller.setDaemon(true);
    poller.start();
    try {
      return call.call();
    } finally {
      done.set(true);
      poller.join();
    }
  }

  /**
   * The slowest entry since the last reset. An EVALSHA is named by its script
   * ({@code evalsha moveDueToReady.lua}), any other command by its name and first key; the
   * bench's own SLOWLOG calls are left out.
   */
  synchronized Slowest read() {
    poll();
    return new Slowest(max, command, entries, over10ms, lost);
  }

  /** Takes in the entries logged since the last look (entry ids only grow, across resets too). */
  private synchronized void poll() {
    List<?> log = (List<?>) redis.sendCommand(Protocol.Command.SLOWLOG, "GET", Integer.toString(MAX_LEN));
    long oldest = Long.MAX_VALUE;
    long newest = lastId;
    for (Object e : log) {
      List<?> entry = (List<?>) e;
      long id = (Long) entry.get(0);
      oldest = Math.min(oldest, id);
      if (id <= lastId) {
        continue;
      }
      newest = Math.max(newest, id);
      String what = describe((List<?>) entry.get(3));
      if (what.startsWith("slowlog")) {
        continue;
      }
      entries++;
      long micros = (Long) entry.get(2);
      if (micros > 10_000) {
        over10ms++;
      }
      if (micros >= max) {
        max = micros;
        command = what;
      }
    }
    if (log.size() >= MAX_LEN && lastId >= 0 && oldest > lastId + 1) {
      lost = true;
    }
    lastId = newest;
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

package dev.delayq.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Lua scripts, one per state change, kept as resources under {@code dev/delayq/lua/}.
 * A line {@code --@include name} is replaced by {@code include/name.lua} (once per script). The SHA-1 is computed
 * here, so a call goes straight to EVALSHA and loads the script only on NOSCRIPT.
 */
public enum Script {
  ENQUEUE("enqueue"),
  MOVE_DUE_TO_READY("moveDueToReady"),
  CLAIM("claim"),
  CLAIM_READY("claimReady"),
  START("start"),
  ACK("ack"),
  MOVE_TO_DELAYED("moveToDelayed"),
  DEAD_LETTER("deadLetter"),
  CANCEL("cancel"),
  REQUEUE_IN_FLIGHT("requeueInFlight"),
  HEARTBEAT("heartbeat"),
  HOLD_LEASE("holdLease"),
  RELEASE_LEASE("releaseLease"),
  RETRY_DEAD("retryDead"),
  PURGE_DEAD("purgeDead"),
  REQUEUE_ORPHAN("requeueOrphan"),
  RELEASE_CLAIMED("releaseClaimed"),
  HAND_OFF_UNSTARTED("handOffUnstarted"),
  CLAIM_LAYOUT("claimLayout"),
  SCHEDULER_BEAT("schedulerBeat"),
  CHANGE_PENDING("changePending"),
  TICK_SCHEDULE("tickSchedule"),
  SAVE_SCHEDULE("saveSchedule"),
  CANCEL_RUNNING("cancelRunning"),
  FORGET_ENDED("forgetEnded"),
  SCAN_FIELDS("scanFields"),
  RESUME("resume"),
  READ_DELAYED("readDelayed"),
  PREVIEW_RECORDS("previewRecords"),
  AWAIT_HANDLER("awaitHandler"),
  HANDLERS_BEAT("handlersBeat"),
  EXPIRE_NO_HANDLER("expireNoHandler"),
  MAKE_ALL_DUE("makeAllDue"),
  ENQUEUE_FLOW("enqueueFlow"),
  COMPLETE("complete"),
  BATCH("batch"),
  REPAIR_WORKFLOW("repairWorkflow"),
  FIND_IN_LIST("findInList");

  private final String fileName;
  private final String source;
  private final String sha;

  Script(String fileName) {
    this.fileName = fileName;
    this.source = expandIncludes(read(fileName + ".lua"));
    this.sha = sha1(source);
  }

  public String source() {
    return source;
  }

  public String sha() {
    return sha;
  }

  @Override
  public String toString() {
    return fileName + ".lua";
  }

  /**
   * {@code text} with its {@code --@include} lines replaced as for these scripts: for a script
   * kept elsewhere (the test kit's) that must use the same layout code, not a copy of it.
   */
  public static String expandIncludes(String text) {
    return expandIncludes(text, new HashSet<>());
  }

  /**
   * Includes may include others (record and ended both need recordFormat); each is put in once,
   * where it is first named, so a script that names two includes sharing one gets one copy.
   */
  private static String expandIncludes(String text, Set<String> included) {
    // compiled here, not in a static field: enum constants are built before the enum's statics
    Matcher m = Pattern.compile("(?m)^--@include (\\w+)$").matcher(text);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String name = m.group(1);
      String body = included.add(name) ? expandIncludes(read("include/" + name + ".lua"), included) : "";
      m.appendReplacement(out, Matcher.quoteReplacement(body));
    }
    m.appendTail(out);
    return out.toString();
  }

  private static String read(String name) {
    String path = "/dev/delayq/lua/" + name;
    try (InputStream in = Script.class.getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException("script resource " + path + " is missing");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String sha1(String text) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}

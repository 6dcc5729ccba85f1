package dev.delayq.supervisor.host;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import redis.clients.jedis.Jedis;

/**
 * What the embedded {@code redis-server} child needs beyond an ordinary child: a wait for its
 * first PONG before anything that uses it starts, and a watchdog, because unlike the JVM
 * children it cannot watch the supervisor's PID itself.
 */
public final class EmbeddedRedis {
  /**
   * After the supervisor dies, draining children get this long to acknowledge their last jobs
   * before Redis goes; whatever they miss stays in Redis (AOF) and is recovered on next start.
   */
  static final int ORPHAN_GRACE_SECONDS = 3;

  private EmbeddedRedis() {}

  /** Waits until the server answers PING (it answers LOADING while it replays the AOF). */
  public static void awaitPing(int port, String password, Process process, Duration timeout, Path log)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    RuntimeException last = null;
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        if (portTaken(log)) {
          throw new StartRefusedException("cannot start: the embedded Redis cannot listen on 127.0.0.1:"
              + port + ", another process holds that port: set redis.embeddedPort "
              + "(DELAYQ_REDIS_EMBEDDED_PORT) to a free port, or stop what holds it");
        }
        throw new IllegalStateException("embedded redis-server exited with code " + process.exitValue()
            + " before answering on port " + port + tail(log));
      }
      try (Jedis jedis = new Jedis("127.0.0.1", port, 500)) {
        jedis.auth(password);
        if ("PONG".equals(jedis.ping())) {
          return;
        }
      } catch (RuntimeException e) {
        last = e;
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException("embedded redis-server did not answer PING on port " + port
        + " within " + timeout.toSeconds() + "s" + (last == null ? "" : ": " + last.getMessage()) + tail(log));
  }

  /**
   * A shell loop that outlives a SIGKILLed supervisor: once {@code supervisorPid} is gone it
   * waits {@link #ORPHAN_GRACE_SECONDS} and sends SIGTERM to {@code redisPid}. It ends by itself
   * as soon as Redis is gone, and the supervisor destroys it when it stops Redis.
   */
  public static Process watchdog(long supervisorPid, long redisPid) throws IOException {
    String script = "s=$1; r=$2; "
        + "while kill -0 $s 2>/dev/null && kill -0 $r 2>/dev/null; do sleep 0.5; done; "
        + "if kill -0 $r 2>/dev/null; then sleep " + ORPHAN_GRACE_SECONDS + "; kill -TERM $r 2>/dev/null; fi";
    return new ProcessBuilder(Setsid.command(List.of("/bin/sh", "-c", script, "delayq-redis-watchdog",
        Long.toString(supervisorPid), Long.toString(redisPid))))
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .start();
  }

  /**
   * redis-server said "Address already in use" in the last lines of its log before it exited.
   * Its last output may still be on its way to the file (the launcher copies it on a thread of
   * its own): looks again for up to a second.
   */
  private static boolean portTaken(Path log) throws InterruptedException {
    for (int look = 0; look < 20; look++) {
      try {
        List<String> lines = Files.readAllLines(log);
        if (lines.subList(Math.max(0, lines.size() - 8), lines.size()).stream()
            .anyMatch(l -> l.contains("Address already in use"))) {
          return true;
        }
      } catch (IOException e) {
        return false;
      }
      Thread.sleep(50);
    }
    return false;
  }

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log);
      return "; last lines of " + log + ":\n  "
          + String.join("\n  ", lines.subList(Math.max(0, lines.size() - 8), lines.size()));
    } catch (IOException e) {
      return "; see " + log;
    }
  }
}

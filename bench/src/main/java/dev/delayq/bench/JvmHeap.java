package dev.delayq.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A running JVM's live heap, read with the JDK's jcmd: a full GC first (GC.run), so what is
 * left is what the process holds on to, then GC.heap_info, whose generation lines (G1's
 * "garbage-first heap", Serial's "def new generation" and "tenured generation", …) each say
 * "used NNNK". Metaspace lines are not heap and are left out.
 */
final class JvmHeap {
  private static final Pattern USED = Pattern.compile("^\\s*(\\S.*?)\\s+total \\d+K, used (\\d+)K");

  private JvmHeap() {}

  /** Live heap in MB, or -1 when jcmd cannot attach (the figure is then missing, not guessed). */
  static double liveMb(long pid) {
    try {
      jcmd(pid, "GC.run");
      long usedKb = 0;
      boolean any = false;
      for (String line : jcmd(pid, "GC.heap_info").split("\n")) {
        Matcher m = USED.matcher(line);
        if (m.find() && !m.group(1).toLowerCase().contains("space")) {
          usedKb += Long.parseLong(m.group(2));
          any = true;
        }
      }
      return any ? usedKb / 1024.0 : -1;
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  private static String jcmd(long pid, String command) throws IOException, InterruptedException {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    Process p = new ProcessBuilder(jcmd.toString(), Long.toString(pid), command)
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException("jcmd " + pid + " " + command + ": " + out);
    }
    return out;
  }
}

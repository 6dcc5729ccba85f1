package dev.delayq.supervisor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * The user {@code nobody}, played by a test that runs as root (as CI does): files handed to it
 * with chown, and commands run as it with {@code runuser}. Tests that need it are skipped, saying
 * why, where the machine lacks the user, runuser, or root.
 */
public final class OtherUser {
  static final String NAME = "nobody";

  private OtherUser() {}

  public static void assumeAvailable() {
    Assumptions.assumeTrue("root".equals(System.getProperty("user.name")),
        "playing another user needs root (chown, runuser); this runs as " + System.getProperty("user.name"));
    Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/sbin/runuser")) || Files.isExecutable(Path.of("/sbin/runuser")),
        "runuser (util-linux) is missing");
    try {
      principal();
    } catch (IOException e) {
      Assumptions.abort("this machine has no user " + NAME + ": " + e);
    }
  }

  static UserPrincipal principal() throws IOException {
    return Path.of("/").getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(NAME);
  }

  /** The other user's group: nogroup (Debian), else nobody. */
  public static GroupPrincipal group() throws IOException {
    var lookup = Path.of("/").getFileSystem().getUserPrincipalLookupService();
    try {
      return lookup.lookupPrincipalByGroupName("nogroup");
    } catch (IOException e) {
      return lookup.lookupPrincipalByGroupName("nobody");
    }
  }

  /** Makes {@code path} the other user's. */
  static void give(Path path) throws IOException {
    Files.setOwner(path, principal());
  }

  /** {@code command} as the other user; its output (stdout and stderr) goes to {@code out}. */
  static Process start(Path out, String... command) throws IOException {
    List<String> full = new ArrayList<>(List.of(runuser(), "-u", NAME, "--"));
    full.addAll(List.of(command));
    return new ProcessBuilder(full).redirectErrorStream(true).redirectOutput(out.toFile()).start();
  }

  /** Runs {@code command} as the other user to its end; its exit code and output. */
  static SupervisorProcess.CliResult run(Path out, String... command) throws IOException, InterruptedException {
    Process p = start(out, command);
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError(String.join(" ", command) + " as " + NAME + " did not end within 60 s");
    }
    return new SupervisorProcess.CliResult(p.exitValue(), Files.readString(out));
  }

  private static String runuser() {
    return Files.isExecutable(Path.of("/usr/sbin/runuser")) ? "/usr/sbin/runuser" : "/sbin/runuser";
  }
}

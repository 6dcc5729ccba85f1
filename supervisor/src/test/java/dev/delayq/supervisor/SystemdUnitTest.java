package dev.delayq.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped unit {@code conf/delayq.service}, as {@code systemd-analyze} judges it offline:
 * it verifies clean (with /opt/delayq standing for this checkout, so its commands exist), and
 * its exposure stays at the level the hardening reached. Skipped where systemd-analyze is
 * missing ({@code .ci/run} installs it).
 */
class SystemdUnitTest {
  static final Path UNIT = SupervisorProcess.INSTALL.resolve("conf/delayq.service");

  @TempDir
  Path dir;
  Path unit;

  @BeforeEach
  void unitPointingAtThisCheckout() throws Exception {
    Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/systemd-analyze")),
        "systemd-analyze is missing: `apt-get install systemd` (.ci/run does)");
    unit = dir.resolve("delayq.service");
    Files.writeString(unit, Files.readString(UNIT).replace("/opt/delayq", SupervisorProcess.INSTALL.toString()));
  }

  private static String run(List<String> command, int expectedExit) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    assertEquals(expectedExit, p.exitValue(), String.join(" ", command) + ":\n" + out);
    return out;
  }

  @Test
  void theUnitVerifiesWithoutAWarning() throws Exception {
    String out = run(List.of("systemd-analyze", "verify", unit.toString()), 0);

    assertEquals("", out.trim());
  }

  @Test
  void theUnitRunsAsItsOwnUserHardenedForAJvmTree() throws Exception {
    String text = Files.readString(UNIT);
    for (String line : List.of("User=delayq", "Group=delayq", "KillMode=mixed", "NoNewPrivileges=yes",
        "ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes", "ReadWritePaths=/var/lib/delayq",
        "WantedBy=multi-user.target")) {
      assertTrue(text.lines().anyMatch(line::equals), "the unit has " + line);
    }
    String out = run(List.of("systemd-analyze", "security", "--offline=yes", unit.toString()), 0);
    Matcher level = Pattern.compile("Overall exposure level for \\S+: (\\d+\\.\\d)").matcher(out);
    assertTrue(level.find(), out);
    double exposure = Double.parseDouble(level.group(1));
    assertTrue(exposure <= 2.0, "exposure " + exposure + " (the README's old unit: 9.6 UNSAFE)");
    System.out.println("systemd-analyze security conf/delayq.service: " + level.group(0));
  }
}

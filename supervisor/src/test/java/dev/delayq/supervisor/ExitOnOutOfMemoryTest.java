package dev.delayq.supervisor;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.config.ConfigLoader;
import dev.delayq.config.DelayqConfig;
import dev.delayq.supervisor.host.Home;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every JVM delayq launches ends on an OutOfMemoryError, so whoever supervises it restarts it
 * instead of leaving it running with threads lost: the supervisor and the CLI (their launch
 * scripts, whatever DELAYQ_SUPERVISOR_OPTS or DELAYQ_CLI_OPTS say), the systemd unit (which runs
 * the supervisor's script), and each child the supervisor starts, whatever its jvm.* options.
 */
class ExitOnOutOfMemoryTest {
  static final String FLAG = "-XX:+ExitOnOutOfMemoryError";

  @TempDir
  Path home;

  @Test
  void theLaunchScriptsGiveTheFlagWhateverTheOperatorsOptions() throws Exception {
    for (String script : List.of("bin/delayq-supervisor", "bin/delayq")) {
      List<String> execs = LaunchScript.execLines(script);
      assertFalse(execs.isEmpty(), script + " has no exec line");
      for (String exec : execs) {
        // the operator's options replace only the ${VAR:-defaults} part
        assertTrue(exec.replaceAll("\\$\\{[A-Z_]+:-[^}]*}", "").contains(FLAG), script + ": " + exec);
      }
    }
  }

  @Test
  void theSystemdUnitStartsTheSupervisorThroughItsScript() throws Exception {
    String unit = Files.readString(SupervisorProcess.INSTALL.resolve("conf/delayq.service"));
    assertTrue(unit.lines().anyMatch(l -> l.matches("ExecStart=\\S*/bin/delayq-supervisor start")), unit);
  }

  @Test
  void everyChildJvmGetsTheFlagWhenItsOptionsLeaveItOut() {
    ChildSpecs specs = specs(Map.of("DELAYQ_JVM_SCHEDULER", "-Xmx64m", "DELAYQ_JVM_WORKER", "-Xmx64m -XX:+UseSerialGC"));

    assertTrue(specs.scheduler().command().contains(FLAG), specs.scheduler().command().toString());
    assertTrue(specs.worker(1).command().contains(FLAG), specs.worker(1).command().toString());
  }

  @Test
  void theShippedOptionsHaveTheFlagOnceAndAnOperatorsExplicitChoiceIsKept() {
    ChildSpecs shipped = specs(Map.of());
    assertTrue(shipped.scheduler().command().stream().filter(FLAG::equals).count() == 1);
    assertTrue(shipped.worker(1).command().stream().filter(FLAG::equals).count() == 1);

    ChildSpecs optedOut = specs(Map.of("DELAYQ_JVM_WORKER", "-Xmx64m -XX:-ExitOnOutOfMemoryError"));
    assertFalse(optedOut.worker(1).command().contains(FLAG), optedOut.worker(1).command().toString());
  }

  private ChildSpecs specs(Map<String, String> env) {
    DelayqConfig config = new ConfigLoader().load(null, env);
    return new ChildSpecs(new Home(SupervisorProcess.INSTALL, home), config, null, null);
  }
}

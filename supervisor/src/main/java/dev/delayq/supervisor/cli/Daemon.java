package dev.delayq.supervisor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.config.DelayqConfig;
import dev.delayq.supervisor.control.ControlClient;
import dev.delayq.supervisor.host.Home;
import dev.delayq.supervisor.host.PidFile;
import dev.delayq.supervisor.host.PrivateFile;
import dev.delayq.supervisor.host.Setsid;
import dev.delayq.supervisor.host.UntrustedPathException;
import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code start --daemon}: launches this same program again, in its own session, without a
 * terminal, its output appended to {@code logs/supervisor.log}; then waits until {@code status}
 * shows every child RUNNING and returns. The launched supervisor is an ordinary foreground one.
 */
final class Daemon {
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);

  private final Home home;
  private final DelayqConfig config;
  private final Path configOption;
  private final Integer workers;

  Daemon(Home home, DelayqConfig config, Path configOption, Integer workers) {
    this.home = home;
    this.config = config;
    this.configOption = configOption;
    this.workers = workers;
  }

  int launch() throws IOException, InterruptedException {
    try {
      PidFile.checkFree(home.pidFile(config));
    } catch (PidFile.HeldException e) {
      System.err.println(e.getMessage() + " (home " + home.home() + ")");
      return 1;
    }
    Path log = home.logDir(config).resolve("supervisor.log");
    try {
      // created 0600 and checked here, never through a link: the redirect below opens it by name
      PrivateFile.open(log, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND).close();
    } catch (UntrustedPathException e) {
      System.err.println("delayq: " + e.getMessage());
      return 1;
    }
    long logStart = Files.size(log);
    Process process = new ProcessBuilder(Setsid.command(command()))
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
        .start();
    ControlClient client = new ControlClient(home.socket(config));
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    JsonNode last = null;
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        // why, as the supervisor said it (a refused start: Redis unreachable, a port taken)
        reasons(log, logStart).forEach(System.err::println);
        System.err.println("delayq supervisor exited with code " + process.exitValue() + "; see " + log);
        return 1;
      }
      try {
        JsonNode answer = client.request(Map.of("cmd", "status"), line -> { }, Duration.ofSeconds(5));
        if (answer.path("pid").asLong() == process.pid()) {
          last = answer;
          List<String> states = new ArrayList<>();
          answer.path("status").path("children").forEach(c -> states.add(c.path("state").asText()));
          if (!states.isEmpty() && states.stream().allMatch("RUNNING"::equals)) {
            System.out.print(StatusText.format(answer));
            System.out.println("delayq supervisor running in the background (pid " + process.pid() + "); log " + log);
            return 0;
          }
          if (!states.isEmpty() && states.stream().allMatch(s -> s.equals("RUNNING") || s.equals("FATAL")
              || s.equals("EXITED"))) {
            System.out.print(StatusText.format(answer));
            System.err.println("delayq supervisor runs in the background (pid " + process.pid()
                + ") but not every child is RUNNING; see " + home.logDir(config));
            return 1;
          }
        }
      } catch (ControlClient.NotRunningException | IOException notYet) {
        // still starting
      }
      Thread.sleep(200);
    }
    if (last != null) {
      System.out.print(StatusText.format(last));
    }
    System.err.println("delayq supervisor (pid " + process.pid() + ") did not get every child RUNNING within "
        + READY_TIMEOUT.toSeconds() + "s; see " + log);
    return 1;
  }

  /**
   * The lines the launched supervisor wrote for the operator ({@code delayq: ...}) to its log
   * since {@code from}; not its warnings, which this launcher said already.
   */
  private static List<String> reasons(Path log, long from) {
    try (java.io.RandomAccessFile in = new java.io.RandomAccessFile(log.toFile(), "r")) {
      in.seek(Math.min(from, in.length()));
      byte[] bytes = new byte[(int) Math.min(in.length() - in.getFilePointer(), 1 << 20)];
      in.readFully(bytes);
      return new String(bytes, java.nio.charset.StandardCharsets.UTF_8).lines()
          .filter(l -> l.startsWith("delayq: ") && !l.startsWith("delayq: warning: ")).toList();
    } catch (IOException e) {
      return List.of();
    }
  }

  private List<String> command() {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(SupervisorCli.class.getName());
    command.add("start");
    command.add("--home");
    command.add(home.home().toString());
    if (configOption != null) {
      command.add("--config");
      command.add(configOption.toAbsolutePath().toString());
    }
    if (workers != null) {
      command.add("--workers");
      command.add(workers.toString());
    }
    return command;
  }
}

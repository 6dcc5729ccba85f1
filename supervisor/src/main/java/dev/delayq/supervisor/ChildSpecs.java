package dev.delayq.supervisor;

import dev.delayq.config.DelayqConfig;
import dev.delayq.config.EmbeddedRedisPassword;
import dev.delayq.config.SecretFile;
import dev.delayq.redisserver.RedisBinary;
import dev.delayq.supervisor.host.Home;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds the spec of every child from the configuration: the same {@code java} for the
 * scheduler and the workers with their per-role JVM options, classpath and main class, and the
 * {@code redis-server} command line of the embedded Redis.
 */
public final class ChildSpecs {
  static final String SCHEDULER_MAIN = "dev.delayq.schedulerproc.SchedulerMain";
  static final String WORKER_MAIN = "dev.delayq.workerproc.WorkerMain";
  /** Every child JVM ends on an OutOfMemoryError (exit 3), so the supervisor restarts it. */
  static final String EXIT_ON_OOM = "-XX:+ExitOnOutOfMemoryError";
  static final Duration START_GRACE = Duration.ofSeconds(1);
  /** The scheduler holds no jobs; it only has to release its lease. */
  public static final Duration SCHEDULER_STOP_TIMEOUT = Duration.ofSeconds(10);
  /** Redis writes its AOF on SIGTERM; it is quick unless the disk is not. */
  public static final Duration REDIS_STOP_TIMEOUT = Duration.ofSeconds(15);

  private final Home home;
  private final DelayqConfig config;
  private final Path configFile;
  private final String embeddedPassword;

  /** {@code embeddedPassword}: the embedded Redis's, or null when redis.url names another Redis. */
  public ChildSpecs(Home home, DelayqConfig config, Path configFile, String embeddedPassword) {
    this.home = home;
    this.config = config;
    this.configFile = configFile;
    this.embeddedPassword = embeddedPassword;
  }

  DelayqConfig config() {
    return config;
  }

  public String embeddedPassword() {
    return embeddedPassword;
  }

  /**
   * The embedded redis-server: the binary on PATH or the shipped one extracted into run/bin,
   * and its password in run/redis.conf (0600, written here), which its command line names:
   * {@code ps} shows the file's name, never the password. It runs under umask 077, so its files
   * in data/ are 0600 whatever the supervisor's umask.
   */
  ChildSpec redis() {
    Path runDir = home.runDir(config);
    Path conf = runDir.resolve("redis.conf");
    SecretFile.write(conf, "# written by the delayq supervisor at each start from " + EmbeddedRedisPassword.FILE_NAME
        + "\nrequirepass " + embeddedPassword);
    // through a shell that sets umask 077 and execs redis-server in its place (same PID): Redis has
    // no option for the mode of its files, and its append-only file (every payload) and each
    // rewrite of it are created with the umask it inherits. The shell's argv holds no secret.
    List<String> command = List.of("/bin/sh", "-c", "umask 077 && exec \"$0\" \"$@\"",
        RedisBinary.locate(runDir.resolve("bin")).toString(), conf.toString(),
        "--port", Integer.toString(config.redis().embeddedPort()),
        "--bind", "127.0.0.1",
        "--appendonly", "yes",
        "--appendfsync", "everysec",
        "--dir", home.dataDir(config).toString(),
        "--save", "",
        "--maxmemory-policy", "noeviction");
    return new ChildSpec("redis", Role.REDIS, command, log("redis"), ChildSpec.Restart.PERMANENT,
        START_GRACE, REDIS_STOP_TIMEOUT);
  }

  ChildSpec scheduler() {
    return new ChildSpec("scheduler", Role.SCHEDULER,
        java("scheduler-proc", SCHEDULER_MAIN, config.jvm().schedulerOptions()), log("scheduler"),
        ChildSpec.Restart.TRANSIENT, START_GRACE, SCHEDULER_STOP_TIMEOUT);
  }

  /** Worker {@code n}, counting from 1. */
  ChildSpec worker(int n) {
    String name = workerName(n);
    return new ChildSpec(name, Role.WORKER,
        java("worker-proc", WORKER_MAIN, config.jvm().workerOptions()), log(name),
        ChildSpec.Restart.TRANSIENT, START_GRACE, config.supervisor().stopTimeout());
  }

  static String workerName(int n) {
    return "worker-" + n;
  }

  /** The n of a name {@link #workerName} made. */
  static int workerNumber(String name) {
    return Integer.parseInt(name.substring("worker-".length()));
  }

  private List<String> java(String module, String mainClass, List<String> jvmOptions) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // first, so an operator's own -Dlogback.configurationFile in jvm.* wins
    command.add("-Dlogback.configurationFile=" + home.logbackConfig());
    // a child out of memory ends (exit 3) and is restarted, instead of running on with any of its
    // threads lost: added when the role's options leave it out (an operator's own
    // -XX:-ExitOnOutOfMemoryError is kept)
    if (jvmOptions.stream().noneMatch(o -> o.contains("ExitOnOutOfMemoryError"))) {
      command.add(EXIT_ON_OOM);
    }
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(classpath(module));
    command.add(mainClass);
    if (configFile != null) {
      command.add("--config");
      command.add(configFile.toString());
    }
    return command;
  }

  String classpath(String module) {
    return home.moduleJar(module) + java.io.File.pathSeparator + home.moduleLib(module).resolve("*");
  }

  /** The module jars that are missing (the build has not run). */
  public List<Path> missingJars() {
    List<Path> missing = new ArrayList<>();
    for (String module : List.of("scheduler-proc", "worker-proc")) {
      if (!home.moduleJar(module).toFile().isFile()) {
        missing.add(home.moduleJar(module));
      }
    }
    return missing;
  }

  private Path log(String child) {
    return home.logDir(config).resolve(child + ".log");
  }
}

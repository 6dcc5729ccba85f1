package dev.delayq.cli;

import dev.delayq.config.ConfigLoader;
import dev.delayq.config.DelayqConfig;
import dev.delayq.config.Durations;
import dev.delayq.config.EmbeddedRedisPassword;
import dev.delayq.process.LogText;
import dev.delayq.redis.RedisConnector;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * {@code bin/delayq}: the operator's tool for the queue itself. It reads the same config file
 * and DELAYQ_* variables as the supervisor, so it reaches the embedded Redis on its port. Every
 * failure is one line on stderr and an exit code from {@link ExitCodes}; {@code --verbose} adds
 * the stack trace.
 */
@Command(name = "delayq", mixinStandardHelpOptions = true, version = "delayq 0.1.0",
    description = "Put jobs on a delayq queue and look after it.",
    subcommands = {EnqueueCommand.class, CancelCommand.class, InspectCommand.class,
        JobsCommand.class, ScheduleCommand.class, PromoteCommand.class, RescheduleCommand.class, EditCommand.class,
        StatsCommand.class, DeadCommand.class, BatchCommand.class, CheckCommand.class, RecoverCommand.class,
        PauseCommand.class, ResumeCommand.class, QueuesCommand.class, CompletionCommand.class},
    exitCodeListHeading = ExitCodes.HEADING, exitCodeList = {ExitCodes.OK_LINE, ExitCodes.FAILED_LINE,
        ExitCodes.USAGE_LINE, ExitCodes.REDIS_LINE})
public final class DelayqCli implements Runnable {

  @Option(names = {"-c", "--config"}, paramLabel = "FILE", scope = CommandLine.ScopeType.INHERIT,
      description = "Config file (default: conf/delayq.yml under $DELAYQ_HOME or the install directory, if present).")
  Path config;

  @Option(names = {"-q", "--queue"}, paramLabel = "NAME", scope = CommandLine.ScopeType.INHERIT,
      description = "Queue name (default: queue.name of the config, or $DELAYQ_QUEUE).")
  String queue;

  @Option(names = "--redis-url", paramLabel = "URL", scope = CommandLine.ScopeType.INHERIT,
      description = "Redis to use, redis://host:port[/db] (default: redis.url of the config, or $DELAYQ_REDIS_URL; "
          + "a URL with a password belongs there, not on a command line every user can read).")
  String redisUrl;

  @Option(names = {"-v", "--verbose"}, scope = CommandLine.ScopeType.INHERIT,
      description = "Print the stack trace of an error.")
  boolean verbose;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  private final Map<String, String> env;
  private final InputStream stdin;

  public DelayqCli() {
    this(System.getenv(), System.in);
  }

  /**
   * A CLI that sees {@code env} as its environment and reads {@code stdin} for {@code --file -}
   * (tests point it at their Redis and queue).
   */
  public DelayqCli(Map<String, String> env, InputStream stdin) {
    this.env = Map.copyOf(env);
    this.stdin = stdin;
  }

  public static void main(String[] args) {
    System.exit(commandLine(new DelayqCli()).execute(args));
  }

  /** The command line with delayq's error handling, duration type and exit codes. */
  public static CommandLine commandLine(DelayqCli cli) {
    CommandLine cl = new CommandLine(cli);
    cl.registerConverter(Duration.class, DelayqCli::duration);
    cl.setExecutionExceptionHandler(new Errors(cli));
    cl.setParameterExceptionHandler(DelayqCli::usageError);
    JobId.unclusterIdCommands(cl);
    return cl;
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(),
        "give a command: enqueue, cancel, inspect, jobs, schedule, promote, reschedule, edit, stats, queues, dead, batch, check, recover or completion");
  }

  /**
   * The configuration of the queue a command works on: the supervisor's, with --redis-url on top,
   * for --queue (else queue.name) alone with its overrides ({@link DelayqConfig#forQueue}). Any
   * queue name is taken, served by the workers or not.
   */
  DelayqConfig loadConfig() {
    DelayqConfig system = loadSystemConfig();
    return system.forQueue(queue != null ? queue : system.queue().name());
  }

  /** The queues a QUEUE argument may name: the system's, and the one --queue names. */
  java.util.Set<String> knownQueues() {
    java.util.Set<String> out = new java.util.LinkedHashSet<>(loadSystemConfig().queueNames());
    out.add(loadConfig().queue().name());
    return out;
  }

  /** The configuration the supervisor would use, every queue it serves included, with --redis-url on top. */
  DelayqConfig loadSystemConfig() {
    Map<String, String> effective = new HashMap<>(env);
    if (redisUrl != null) {
      effective.put("DELAYQ_REDIS_URL", redisUrl);
    }
    return new ConfigLoader().warningsTo(this::warn).load(configFile(), effective);
  }

  /**
   * Opens a session on the configured Redis and queue (connections are made on first use); the
   * embedded Redis with the password its supervisor keeps in the home's run/.
   */
  Session connect() {
    return connect(loadConfig());
  }

  /** {@link #connect()} to the queue of {@code c} (a config of one queue: {@link DelayqConfig#forQueue}). */
  Session connect(DelayqConfig c) {
    Session s = Session.open(c, redisUrl(c));
    try {
      return s.verified();
    } catch (RuntimeException e) {
      s.close();
      throw e;
    }
  }

  /** The URL to reach {@code c}'s Redis with: the embedded one's carries its password. */
  String redisUrl(DelayqConfig c) {
    warnOfPasswordOnCommandLine();
    return EmbeddedRedisPassword.connectUrl(c, home());
  }

  /** A warning on stderr, before what the command prints. */
  private void warn(String warning) {
    PrintWriter err = spec.commandLine().getErr();
    err.println("delayq: warning: " + warning);
    err.flush();
  }

  /** A password in --redis-url is in every user's {@code ps}: say so, and where it belongs. */
  private void warnOfPasswordOnCommandLine() {
    if (redisUrl != null && !RedisConnector.redact(redisUrl).equals(redisUrl)) {
      PrintWriter err = spec.commandLine().getErr();
      err.println("delayq: warning: the password in --redis-url can be read by every user of this host "
          + "(ps, /proc/*/cmdline); give the URL in DELAYQ_REDIS_URL or in redis.url of the config file instead");
      err.flush();
    }
  }

  /** The delayq home: DELAYQ_HOME, else the install directory, else the working directory. */
  Path home() {
    for (String base : new String[] {env.get("DELAYQ_HOME"), System.getProperty("delayq.install")}) {
      if (base != null && !base.isBlank()) {
        return Path.of(base);
      }
    }
    return Path.of("").toAbsolutePath();
  }

  private Path configFile() {
    if (config != null) {
      return config;
    }
    for (String base : new String[] {env.get("DELAYQ_HOME"), System.getProperty("delayq.install")}) {
      if (base != null && !base.isBlank()) {
        Path candidate = Path.of(base, "conf", "delayq.yml");
        if (Files.isRegularFile(candidate)) {
          return candidate;
        }
      }
    }
    return null;
  }

  InputStream stdin() {
    return stdin;
  }

  static Duration duration(String text) {
    try {
      return Durations.parse(text);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.TypeConversionException(e.getMessage());
    }
  }

  /** Bad usage: one line naming the problem and where help is, exit 2. */
  private static int usageError(CommandLine.ParameterException e, String[] args) {
    CommandLine cmd = e.getCommandLine();
    PrintWriter err = cmd.getErr();
    err.println("delayq: " + e.getMessage().replaceFirst("^Error: ", "") + " (see '" + cmd.getCommandSpec().qualifiedName() + " --help')"
        + JobId.dashedIdHint(cmd.getCommandSpec(), args));
    err.flush();
    return ExitCodes.USAGE;
  }

  /** Maps every exception a command lets through to one line on stderr and an exit code. */
  private record Errors(DelayqCli cli) implements CommandLine.IExecutionExceptionHandler {
    @Override
    public int handleExecutionException(Exception e, CommandLine cmd, CommandLine.ParseResult parsed) {
      PrintWriter err = cmd.getErr();
      Failure f = Failure.of(e, cli);
      err.println("delayq: " + LogText.escape(f.message()));
      if (cli.verbose) {
        e.printStackTrace(err);
      }
      err.flush();
      return f.exitCode();
    }
  }
}

package dev.delayq.supervisor.cli;

import dev.delayq.config.ConfigException;
import dev.delayq.config.DelayqConfig;
import dev.delayq.config.EmbeddedRedisPassword;
import dev.delayq.config.SecretFile;
import dev.delayq.process.ChildEnvironment;
import dev.delayq.redis.Inspector;
import dev.delayq.redis.Keys;
import dev.delayq.redis.Recovery;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisConnection;
import dev.delayq.redis.RedisConnector;
import dev.delayq.supervisor.ChildSpecs;
import dev.delayq.supervisor.InstantRecovery;
import dev.delayq.supervisor.ProcessLauncher;
import dev.delayq.supervisor.QueueInspectors;
import dev.delayq.supervisor.Supervisor;
import dev.delayq.supervisor.Ticker;
import dev.delayq.supervisor.control.ControlCommands;
import dev.delayq.supervisor.control.ControlServer;
import dev.delayq.supervisor.host.Home;
import dev.delayq.supervisor.host.LogRotation;
import dev.delayq.supervisor.host.PidFile;
import dev.delayq.supervisor.host.PrivateDirs;
import dev.delayq.supervisor.host.RedisPreflight;
import dev.delayq.supervisor.host.Signals;
import dev.delayq.supervisor.host.StartRefusedException;
import dev.delayq.supervisor.host.UntrustedPathException;
import dev.delayq.supervisor.web.WebServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code start}: takes the PID file, opens the control socket and runs the supervisor. */
@Command(name = "start", mixinStandardHelpOptions = true,
    description = "Start the supervisor and its children; in the foreground unless --daemon (Ctrl-C or SIGTERM = stop).")
final class StartCommand implements Callable<Integer> {
  private static final Logger log = LoggerFactory.getLogger(StartCommand.class);
  /** The dashboard's token in force, in run/ (mode 0600), for the owner's tools and browser. */
  static final String WEB_TOKEN_FILE = "web.token";

  @Mixin
  Location where;

  @Option(names = "--workers", paramLabel = "N", description = "Worker processes (default: worker.processes).")
  Integer workers;

  @Option(names = "--daemon", description = "Run in the background (output to logs/supervisor.log); "
      + "return once every child is RUNNING.")
  boolean daemon;

  @Override
  public Integer call() throws Exception {
    Home home = where.resolve();
    DelayqConfig config;
    try {
      config = where.load(home);
    } catch (ConfigException e) {
      System.err.println("delayq: " + e.getMessage());
      return 1;
    }
    int count = workers != null ? workers : config.worker().processes();
    if (count < 0 || count > config.worker().maxProcesses()) {
      System.err.println("delayq: --workers must be between 0 and worker.maxProcesses ("
          + config.worker().maxProcesses() + "), got " + count);
      return 1;
    }
    try {
      // before anything is written there: the PID file, the logs, the secrets, the AOF
      PrivateDirs.prepare(home, List.of(home.runDir(config), home.logDir(config), home.dataDir(config)));
    } catch (UntrustedPathException e) {
      System.err.println("delayq: " + e.getMessage());
      return 1;
    }
    if (daemon) {
      return new Daemon(home, config, where.config, workers).launch();
    }
    try (PidFile pidFile = PidFile.acquire(home.pidFile(config))) {
      pidFile.previous().ifPresent(pid -> {
        if (pid != ProcessHandle.current().pid()) {
          log.info("took over {} left by pid {}, which is gone", home.pidFile(config), pid);
        }
      });
      return run(home, config, count);
    } catch (PidFile.HeldException e) {
      System.err.println(e.getMessage() + " (home " + home.home() + ")");
      return 1;
    } catch (UntrustedPathException e) {
      System.err.println("delayq: " + e.getMessage());
      return 1;
    }
  }

  private int run(Home home, DelayqConfig config, int count) throws IOException {
    Path configFile = home.configFile(where.config);
    ChildSpecs specs = new ChildSpecs(home, config, configFile,
        config.redis().embedded() ? EmbeddedRedisPassword.loadOrCreate(home.runDir(config)) : null);
    for (Path jar : specs.missingJars()) {
      log.warn("{} is missing: build with `mvn -DskipTests package` (bin/delayq-supervisor does it)", jar);
    }
    long self = ProcessHandle.current().pid();
    // the children get the URL, password included, in their environment: never on a command line
    String redisUrl = config.redis().embedded()
        ? EmbeddedRedisPassword.withPassword(config.redis().embeddedUrl(), specs.embeddedPassword())
        : config.redisUrl();
    String host = ChildEnvironment.host(System.getenv());
    Map<String, String> env = Map.of(
        "DELAYQ_REDIS_URL", redisUrl,
        "DELAYQ_SUPERVISOR_PID", Long.toString(self),
        "DELAYQ_HOME", home.home().toString(),
        ChildEnvironment.HOST, host);
    String webToken = config.web().token().isEmpty() ? SecretFile.generate() : config.web().token();
    try (RedisConnection redis = RedisConnector.connect(config, redisUrl, "delayq-supervisor", 4);
        ProcessLauncher launcher = new ProcessLauncher(env, home.home(), rotation(config),
            config.redis().embeddedPort(), specs.embeddedPassword())) {
      List<Recovery> perQueue = new java.util.ArrayList<>();
      Map<String, Inspector> inspectors = new java.util.LinkedHashMap<>();
      for (DelayqConfig queue : config.perQueue()) {
        Keys k = Keys.of(queue);
        Inspector inspector = new Inspector(redis.client(), k);
        inspectors.put(queue.queue().name(), inspector);
        perQueue.add(new Recovery(new RedisBroker(redis, k).withLimits(queue), inspector,
            config.worker().poisonPillAfter()));
      }
      InstantRecovery recovery = new InstantRecovery(perQueue, host, home.runDir(config));
      Supervisor supervisor = new Supervisor(specs, launcher, recovery,
          new QueueInspectors(config.queue().name(), inspectors), count, Ticker.SYSTEM,
          () -> RedisPreflight.check(redis, config));
      Path tokenFile = home.runDir(config).resolve(WEB_TOKEN_FILE);
      Optional<WebServer> web = WebServer.startIfEnabled(config, redisUrl, webToken, new WebSteering(supervisor));
      if (web.isPresent()) {
        SecretFile.write(tokenFile, webToken);
      }
      ControlServer control = new ControlServer(home.socket(config), new ControlCommands(supervisor,
          () -> where.load(home).worker().processes(), config.supervisor().stopTimeout(),
          web.map(w -> w.url() + "#token=" + webToken)));
      control.start();
      Signals.onStop(why -> supervisor.stop(config.supervisor().stopTimeout(), why, null));
      log.info("delayq supervisor {} starting: home {}, queue(s) {}, Redis {}{}, {} worker(s); control socket {}",
          self, home.home(), String.join(", ", config.queueNames()), redis.describe(),
          config.redis().embedded() ? " (embedded)" : "", count, home.socket(config));
      try {
        supervisor.run();
        log.info("delayq supervisor {} stopped", self);
        return 0;
      } catch (StartRefusedException e) {
        // once, on the terminal (with --daemon: in supervisor.log, which the launcher shows)
        System.err.println("delayq: " + e.getMessage());
        supervisor.abort();
        return 1;
      } catch (InterruptedException | RuntimeException e) {
        log.error("delayq supervisor failed: {}", e.getMessage(), e);
        supervisor.abort();
        return 1;
      } finally {
        web.ifPresent(WebServer::close);
        Files.deleteIfExists(tokenFile);
        control.close();
      }
    }
  }

  private static LogRotation rotation(DelayqConfig config) {
    return new LogRotation(config.supervisor().logMaxBytes(), config.supervisor().logBackups());
  }
}

package dev.delayq.supervisor;

import dev.delayq.config.ConfigException;
import dev.delayq.config.DelayqConfig;
import dev.delayq.redis.Inspector;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.RedisConnector;
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
import redis.clients.jedis.JedisPooled;

/** {@code start}: takes the PID file, opens the control socket and runs the supervisor. */
@Command(name = "start", mixinStandardHelpOptions = true,
    description = "Start the supervisor and its children; in the foreground unless --daemon (Ctrl-C or SIGTERM = stop).")
final class StartCommand implements Callable<Integer> {
  private static final Logger log = LoggerFactory.getLogger(StartCommand.class);

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
    if (count < 0 || count > 256) {
      System.err.println("delayq: --workers must be between 0 and 256, got " + count);
      return 1;
    }
    if (daemon) {
      return new Daemon(home, config, where.config, workers).launch();
    }
    for (Path dir : List.of(home.runDir(config), home.logDir(config), home.dataDir(config))) {
      Files.createDirectories(dir);
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
    }
  }

  private int run(Home home, DelayqConfig config, int count) throws IOException {
    Path configFile = home.configFile(where.config);
    ChildSpecs specs = new ChildSpecs(home, config, configFile);
    for (Path jar : specs.missingJars()) {
      log.warn("{} is missing: build with `mvn -DskipTests package` (bin/delayq-supervisor does it)", jar);
    }
    long self = ProcessHandle.current().pid();
    Map<String, String> env = Map.of(
        "DELAYQ_REDIS_URL", config.redisUrl(),
        "DELAYQ_SUPERVISOR_PID", Long.toString(self),
        "DELAYQ_HOME", home.home().toString());
    try (JedisPooled redis = RedisConnector.open(config.redisUrl(), "delayq-supervisor", 4,
        config.redis().connectTimeout(), config.redis().socketTimeout())) {
      Keys keys = new Keys(config.queue().keyPrefix(), config.queue().name());
      Inspector inspector = new Inspector(redis, keys);
      InstantRecovery recovery = new InstantRecovery(new RedisBroker(redis, keys), inspector,
          config.worker().poisonPillAfter(), home.runDir(config));
      Supervisor supervisor = new Supervisor(specs, new ChildLauncher(env, home.home()), recovery,
          inspector, count, Ticker.SYSTEM);
      ControlServer control = new ControlServer(home.socket(config), new ControlCommands(supervisor,
          () -> where.load(home).worker().processes(), config.supervisor().stopTimeout()));
      control.start();
      Optional<WebServer> web = WebServer.startIfEnabled(config, new WebSteering(supervisor));
      Signals.onStop(why -> supervisor.stop(config.supervisor().stopTimeout(), why, null));
      log.info("delayq supervisor {} starting: home {}, queue {}, Redis {}{}, {} worker(s); control socket {}",
          self, home.home(), config.queue().name(), RedisConnector.redact(config.redisUrl()),
          config.redis().embedded() ? " (embedded)" : "", count, home.socket(config));
      try {
        supervisor.run();
        log.info("delayq supervisor {} stopped", self);
        return 0;
      } catch (InterruptedException | RuntimeException e) {
        log.error("delayq supervisor failed: {}", e.getMessage(), e);
        supervisor.abort();
        return 1;
      } finally {
        web.ifPresent(WebServer::close);
        control.close();
      }
    }
  }
}

package dev.delayq.supervisor.host;

import dev.delayq.config.DelayqConfig;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where things are. {@code install} holds the built jars and {@code conf/logback.xml} (the
 * project root); {@code home} holds the state: {@code run/}, {@code logs/}, {@code data/} and,
 * by default, {@code conf/delayq.yml}. They are the same directory unless {@code --home} or
 * {@code DELAYQ_HOME} points the state elsewhere (as the tests do).
 */
public record Home(Path install, Path home) {

  public Home {
    install = install.toAbsolutePath().normalize();
    home = home.toAbsolutePath().normalize();
  }

  /** {@code --home}, else DELAYQ_HOME, else the install directory. */
  public static Home resolve(Path homeOption) {
    Path install = installDir();
    if (homeOption != null) {
      return new Home(install, homeOption);
    }
    String env = System.getenv("DELAYQ_HOME");
    return new Home(install, env != null && !env.isBlank() ? Path.of(env) : install);
  }

  /** The {@code delayq.install} property bin/ sets, else the root above supervisor/target. */
  public static Path installDir() {
    String property = System.getProperty("delayq.install");
    if (property != null && !property.isBlank()) {
      return Path.of(property);
    }
    try {
      // supervisor/target/classes or supervisor/target/supervisor.jar -> the project root
      Path code = Path.of(Home.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      Path root = code.getParent() == null ? null : code.getParent().getParent();
      if (root != null && root.getParent() != null && Files.isDirectory(root.getParent().resolve("conf"))) {
        return root.getParent();
      }
    } catch (URISyntaxException | RuntimeException e) {
      // fall through to the working directory
    }
    return Path.of("").toAbsolutePath();
  }

  /** The config file to use: the one given, else conf/delayq.yml in home, then in install. */
  public Path configFile(Path option) {
    if (option != null) {
      return option.toAbsolutePath();
    }
    for (Path dir : new Path[] {home, install}) {
      Path candidate = dir.resolve("conf").resolve("delayq.yml");
      if (Files.isRegularFile(candidate)) {
        return candidate;
      }
    }
    return null;
  }

  public Path runDir(DelayqConfig config) {
    return home.resolve(config.supervisor().runDir());
  }

  public Path logDir(DelayqConfig config) {
    return home.resolve(config.supervisor().logDir());
  }

  public Path dataDir(DelayqConfig config) {
    return home.resolve(config.supervisor().dataDir());
  }

  public Path pidFile(DelayqConfig config) {
    return runDir(config).resolve("supervisor.pid");
  }

  public Path socket(DelayqConfig config) {
    return runDir(config).resolve("supervisor.sock");
  }

  public Path logbackConfig() {
    return install.resolve("conf").resolve("logback.xml");
  }

  /** The jar a process module builds, e.g. scheduler-proc/target/scheduler-proc.jar. */
  public Path moduleJar(String module) {
    return install.resolve(module).resolve("target").resolve(module + ".jar");
  }

  /** The runtime dependencies maven-dependency-plugin copied next to that jar. */
  public Path moduleLib(String module) {
    return install.resolve(module).resolve("target").resolve("lib");
  }
}

package example.orders;

import dev.delayq.redisserver.RedisServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One instance of the example app in a JVM of its own, as a replica of a deployment runs it:
 * {@code OrderApp} on this module's test classpath with DELAYQ_REDIS_URL, its own HTTP port, and
 * the "ledger" profile (the test handler that records each run in {@code ledgerFile}). Each start
 * is a new JVM appending to target/two-apps/NAME.log.
 */
final class OrderAppProcess implements AutoCloseable {
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private final String name;
  private final String redisUrl;
  private final Path ledgerFile;
  private final List<String> extraArgs;
  private Process process;
  private int port;

  OrderAppProcess(String name, String redisUrl, Path ledgerFile, List<String> extraArgs) {
    this.name = name;
    this.redisUrl = redisUrl;
    this.ledgerFile = ledgerFile;
    this.extraArgs = extraArgs;
  }

  /** Starts a new JVM of the app; {@link #awaitUp} waits for it. */
  void start() {
    port = RedisServer.freePort();
    Path logs = Path.of("target", "two-apps");
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        // sized as a replica with one CPU: a starting JVM's compiler and GC threads do not crowd out
        // the running instance on the 2 cores of a test machine as much (a replica of a deployment
        // starts on a host or in a container of its own)
        "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:ActiveProcessorCount=1",
        "-cp", System.getProperty("java.class.path"), OrderApp.class.getName(),
        "--server.port=" + port, "--spring.profiles.active=ledger", "--ledger.file=" + ledgerFile.toAbsolutePath()));
    command.addAll(extraArgs);
    try {
      Files.createDirectories(logs);
      ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(logs.resolve(name + ".log").toFile()));
      pb.environment().put("DELAYQ_REDIS_URL", redisUrl);
      process = pb.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Waits until the app answers UP on its health endpoint: its context started, so its worker
   * consumes and its scheduler holds the lease or stands by. A JVM that exits fails at once.
   */
  void awaitUp(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    HttpRequest health = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/health"))
        .timeout(Duration.ofSeconds(2)).build();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new AssertionError(name + " exited with " + process.exitValue()
            + " before it was up; see target/two-apps/" + name + ".log");
      }
      try {
        HttpResponse<String> r = HTTP.send(health, HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200 && r.body().contains("\"UP\"")) {
          return;
        }
      } catch (IOException notYet) {
        // not listening yet
      }
      Thread.sleep(200);
    }
    throw new AssertionError(name + " was not up within " + timeout + "; see target/two-apps/" + name + ".log");
  }

  String name() {
    return name;
  }

  long pid() {
    return process.pid();
  }

  boolean isAlive() {
    return process != null && process.isAlive();
  }

  /** SIGTERM, as a rolling deploy stops a replica, and waits for the JVM's graceful exit. */
  void stopGracefully(Duration timeout) throws InterruptedException {
    process.destroy();
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError(name + " did not stop within " + timeout + " of SIGTERM");
    }
  }

  /** kill -9: the JVM ends with no shutdown of any kind. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(10, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws InterruptedException {
    if (isAlive()) {
      kill();
    }
  }
}

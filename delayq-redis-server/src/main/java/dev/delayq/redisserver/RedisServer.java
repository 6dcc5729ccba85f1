package dev.delayq.redisserver;

import dev.delayq.redisserver.RedisBinary;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;

/**
 * One real redis-server (or Sentinel) on a free loopback port, in its own temp directory, for a
 * test that needs a server of its own: with a password, TLS, as a replica, as a Sentinel, or
 * keeping its data to be killed and started again. It is ready before {@link #start} returns,
 * and dies with the test JVM at the latest.
 */
public final class RedisServer implements AutoCloseable {
  private final List<String> command;
  private final Predicate<RedisServer> ready;
  private final int port;
  private final Path dir;
  private volatile Process process;

  private RedisServer(List<String> command, Predicate<RedisServer> ready, int port, Path dir) {
    this.command = List.copyOf(command);
    this.ready = ready;
    this.port = port;
    this.dir = dir;
  }

  /** A plain server (no persistence, noeviction) with {@code extraArgs} appended. */
  public static RedisServer start(String... extraArgs) {
    int port = freePort();
    List<String> args = new ArrayList<>(List.of("--port", Integer.toString(port)));
    args.addAll(List.of(extraArgs));
    return launch(port, args, false, ready -> ready.logContains("Ready to accept connections"));
  }

  /**
   * A plain replica of {@code master}, returned once the master counts it (a WAIT for one replica
   * answers 1), so that a test's first write is acknowledged by it like the ones after.
   */
  public static RedisServer startReplicaOf(RedisServer master) {
    RedisServer replica = start("--replicaof", "127.0.0.1", Integer.toString(master.port()));
    long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    try (RedisClient m = master.client()) {
      while ((Long) m.sendCommand(Protocol.Command.WAIT, "1", "100") != 1L) {
        if (System.nanoTime() > until) {
          replica.close();
          throw new IllegalStateException("replica :" + replica.port() + " of :" + master.port()
              + " did not catch up within 10 s");
        }
      }
    }
    return replica;
  }

  /** A node of a Redis Cluster, not yet part of one (see {@link RedisCluster}). */
  public static RedisServer startClusterNode() {
    return startClusterNode(5000);
  }

  /**
   * A cluster node that counts a peer as failed after {@code nodeTimeoutMs} without an answer
   * (cluster-node-timeout): how soon a replica takes over from a master that died.
   */
  public static RedisServer startClusterNode(int nodeTimeoutMs) {
    int port = freePort();
    return launch(port, List.of("--port", Integer.toString(port), "--cluster-enabled", "yes",
        "--cluster-config-file", "nodes-" + port + ".conf", "--cluster-node-timeout",
        Integer.toString(nodeTimeoutMs)), false, ready -> ready.logContains("Ready to accept connections"));
  }

  /**
   * A server that keeps its jobs in {@code dir} (append-only file, fsync always), so that a test
   * can {@link #kill} it and {@link #restart} it with its data on the same port.
   */
  public static RedisServer startPersistent(Path dir, String... extraArgs) {
    int port = freePort();
    List<String> args = new ArrayList<>(List.of("--port", Integer.toString(port),
        "--appendonly", "yes", "--appendfsync", "always"));
    args.addAll(List.of(extraArgs));
    return launch(port, args, false, ready -> ready.logContains("Ready to accept connections"), dir);
  }

  /**
   * A server on a TLS port only, with the certificate and key in {@code certs}; {@code
   * requireClientCertificate} makes it refuse clients without a certificate its CA signed.
   */
  public static RedisServer startTls(TestCa.Files certs, boolean requireClientCertificate) {
    int port = freePort();
    List<String> args = List.of("--port", "0", "--tls-port", Integer.toString(port),
        "--tls-cert-file", certs.cert().toString(), "--tls-key-file", certs.key().toString(),
        "--tls-ca-cert-file", certs.ca().toString(),
        "--tls-auth-clients", requireClientCertificate ? "yes" : "no");
    return launch(port, args, false, ready -> ready.logContains("Ready to accept connections"));
  }

  /** A Sentinel monitoring {@code master} under {@code masterName}, quorum {@code quorum}. */
  public static RedisServer startSentinel(String masterName, int masterPort, int quorum) {
    int port = freePort();
    Path dir = tempDir("delayq-test-sentinel");
    Path conf = dir.resolve("sentinel.conf");
    try {
      Files.writeString(conf, String.join("\n",
          "port " + port,
          "bind 127.0.0.1",
          "dir " + dir,
          "sentinel resolve-hostnames no",
          "sentinel monitor " + masterName + " 127.0.0.1 " + masterPort + " " + quorum,
          "sentinel down-after-milliseconds " + masterName + " 2000",
          "sentinel failover-timeout " + masterName + " 10000",
          "sentinel parallel-syncs " + masterName + " 1",
          ""));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return launch(port, List.of(conf.toString(), "--sentinel"), true, ready -> pings(port), dir);
  }

  private static RedisServer launch(int port, List<String> args, boolean sentinel,
      Predicate<RedisServer> ready) {
    return launch(port, args, sentinel, ready, tempDir("delayq-test-redis"));
  }

  private static RedisServer launch(int port, List<String> args, boolean sentinel,
      Predicate<RedisServer> ready, Path dir) {
    List<String> command = new ArrayList<>();
    command.add(RedisBinary.locate().toString());
    if (sentinel) {
      command.addAll(args);
    } else {
      // later arguments win, so extra ones may override these
      command.addAll(List.of("--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
          "--dir", dir.toString(), "--maxmemory-policy", "noeviction"));
      command.addAll(args);
    }
    RedisServer server = new RedisServer(command, ready, port, dir);
    server.run();
    return server;
  }

  /** Starts the server again after {@link #kill}: same arguments, port and directory (and data, if it keeps any). */
  public void restart() {
    if (process.isAlive()) {
      throw new IllegalStateException("redis-server on port " + port + " is still running");
    }
    run();
  }

  private void run() {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(dir.resolve("redis.log").toFile()).start();
      Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly));
      process = p;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (!ready.test(this)) {
        if (!p.isAlive() || System.nanoTime() > deadline) {
          p.destroyForcibly();
          throw new IllegalStateException("test redis-server did not start on port " + port
              + ": " + log());
        }
        Thread.sleep(20);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static boolean pings(int port) {
    try (RedisClient probe = RedisClient.create("127.0.0.1", port)) {
      probe.ping();
      return true;
    } catch (RuntimeException notYet) {
      return false;
    }
  }

  public int port() {
    return port;
  }

  /**
   * Waits until {@code replicas} replicas of this master have every write made so far (a write,
   * then WAIT). A test's set-up calls it before a connection with redis.replicaAcks: after a first
   * sync, or after a test before it stopped and resumed a replica, the replica may still be
   * catching up, and the set-up's own WAIT gives it only the test's short timeout.
   */
  public void awaitReplicasCaughtUp(int replicas, Duration within) {
    try (RedisClient m = client()) {
      String key = "delayq-test:replicas-caught-up";
      m.set(key, "1");
      long caughtUp = m.waitReplicas(key, replicas, within.toMillis());
      if (caughtUp < replicas) {
        throw new IllegalStateException(caughtUp + " of " + replicas + " replica(s) of " + url()
            + " caught up within " + within.toMillis() + " ms");
      }
    }
  }

  public String url() {
    return "redis://127.0.0.1:" + port;
  }

  public Path dir() {
    return dir;
  }

  public long pid() {
    return process.pid();
  }

  /** A fresh client on a plain server (the caller closes it). */
  public RedisClient client() {
    return RedisClient.create("127.0.0.1", port);
  }

  public String log() {
    try {
      return Files.readString(dir.resolve("redis.log"));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  public boolean logContains(String text) {
    return log().contains(text);
  }

  /** SIGKILL, as a crash. */
  public void kill() {
    process.destroyForcibly();
    try {
      process.waitFor(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    kill();
  }

  public static int freePort() {
    try (ServerSocket s = new ServerSocket(0)) {
      s.setReuseAddress(true);
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static Path tempDir(String prefix) {
    try {
      return Files.createTempDirectory(prefix);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Waits until {@code condition} holds, polling; for set-ups, not for assertions. */
  public static void await(String what, Duration timeout, java.util.function.BooleanSupplier condition) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("timed out waiting for " + what);
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }
}

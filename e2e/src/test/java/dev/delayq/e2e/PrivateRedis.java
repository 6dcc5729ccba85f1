package dev.delayq.e2e;

import dev.delayq.redis.RedisBinary;
import dev.delayq.testing.RedisFixture;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A redis-server of one test's own, on a free port, with its append-only file in {@code dir}
 * (fsync always), so the test can kill it and start it again with its data.
 */
final class PrivateRedis implements AutoCloseable {
  private final int port;
  private final Path dir;
  private final List<String> extraArgs;
  private Process process;

  private PrivateRedis(int port, Path dir, List<String> extraArgs) {
    this.port = port;
    this.dir = dir;
    this.extraArgs = extraArgs;
  }

  static PrivateRedis start(Path dir, String... extraArgs) throws IOException {
    PrivateRedis redis = new PrivateRedis(RedisFixture.freePort(), dir, List.of(extraArgs));
    redis.startAgain();
    return redis;
  }

  String url() {
    return "redis://127.0.0.1:" + port;
  }

  /** SIGKILL: no chance to write anything more. */
  void kill() throws InterruptedException {
    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
  }

  void startAgain() throws IOException {
    List<String> command = new ArrayList<>(List.of(RedisBinary.locate().toString(), "--port",
        Integer.toString(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "yes",
        "--appendfsync", "always", "--dir", dir.toString()));
    command.addAll(extraArgs);
    process = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("redis.log").toFile())).start();
  }

  @Override
  public void close() throws InterruptedException {
    if (process != null) {
      kill();
    }
  }
}

package dev.delayq.cli;

import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBroker;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import picocli.CommandLine;

/**
 * Runs {@code delayq} commands in this JVM against the test Redis, on a queue of its own, and
 * captures what they print. The same queue is reachable through {@link #broker} and
 * {@link #probe} for seeding and for checking what a command did.
 */
final class Cli {
  final String queue = RedisFixture.freshQueue();
  final Keys keys = new Keys("delayq", queue);
  final RedisBroker broker = RedisFixture.get().broker(keys);
  final QueueProbe probe = new QueueProbe(broker);
  final Map<String, String> env = new HashMap<>(Map.of(
      "DELAYQ_REDIS_URL", RedisFixture.get().url(), "DELAYQ_QUEUE", queue));

  /** What a command did: its exit code and everything it printed. */
  record Result(int exit, String out, String err) {
    @Override
    public String toString() {
      return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
  }

  Result run(String... args) {
    return runWithStdin("", args);
  }

  Result runWithStdin(String stdin, String... args) {
    DelayqCli cli = new DelayqCli(env, new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = DelayqCli.commandLine(cli);
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int exit = cl.execute(args);
    return new Result(exit, out.toString(), err.toString());
  }

  /** A CLI whose Redis is a port nobody listens on. */
  static Cli unreachable() throws java.io.IOException {
    Cli cli = new Cli();
    cli.env.put("DELAYQ_REDIS_URL", "redis://127.0.0.1:" + RedisFixture.freePort());
    return cli;
  }
}

package dev.delayq.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's first screen works as written: its set-up command starts the real supervisor (the
 * embedded Redis, the scheduler and the workers, from this checkout's jars, through bin/), and
 * every command of its demo, read from the README, runs against it in order: the enqueues, the
 * worker's log line the demo quotes, and the dashboard URL that {@code status} ends with, which
 * answers. The state goes to a temporary home (DELAYQ_HOME) with bin/ linked into it, so the
 * commands run there exactly as typed; only the two ports move to free ones.
 */
class ReadmeDemoTest {
  private static final Path ROOT = MarkdownPage.projectRoot();
  private static final Pattern QUOTED = Pattern.compile("\"([^\"]+)\"");

  @Test
  void theSetUpsTestCommandIsTheOneCiRuns() throws IOException {
    SetUp setUp = setUp();
    List<String> ciCommands = Files.readAllLines(ROOT.resolve(".ci/run")).stream()
        .map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
    assertEquals(setUp.testCommand(), ciCommands.get(ciCommands.size() - 1),
        ".ci/run must end with the README's test command");
  }

  @Test
  void theDemoRunsAsWrittenAgainstASupervisorStartedAsTheReadmeSays(@TempDir Path home) throws Exception {
    requireBuiltJars();
    SetUp setUp = setUp();
    List<Command> demo = commands(MarkdownPage.readme(), "Demo");
    assertTrue(demo.size() >= 3, "the README's demo has " + demo.size() + " commands");

    Files.createSymbolicLink(home.resolve("bin"), ROOT.resolve("bin"));
    int webPort = freePort();
    Map<String, String> env = new HashMap<>();
    env.put("DELAYQ_HOME", home.toString());
    env.put("DELAYQ_REDIS_EMBEDDED_PORT", Integer.toString(freePort()));
    env.put("DELAYQ_WEB_PORT", Integer.toString(webPort));
    env.put("JAVA_HOME", System.getProperty("java.home"));

    Process supervisor = bash(setUp.startCommand(), home, env)
        .redirectErrorStream(true).redirectOutput(home.resolve("supervisor.out").toFile()).start();
    List<ProcessHandle> tree = new ArrayList<>();
    try {
      awaitAllRunning(home, env, supervisor);
      supervisor.descendants().forEach(tree::add);
      for (Command c : demo) {
        if (c.text().startsWith("tail -f ")) {
          awaitLogLine(home, c);
          continue;
        }
        Result r = run(c.text(), home, env);
        assertEquals(0, r.code(), "README:" + c.line() + ": `" + c.text() + "` exited " + r.code() + ":\n" + r.output());
        if (c.text().startsWith("bin/delayq-supervisor status")) {
          assertStatusEndsWithTheDashboard(c, r.output(), home, webPort);
        }
      }
      // the second enqueue was a duplicate: the job ran once
      Command tail = demo.stream().filter(c -> c.text().startsWith("tail -f ")).findFirst().orElseThrow();
      assertEquals(1, matchingLines(home, tail).size(), "the demo's job ran more than once: " + matchingLines(home, tail));
    } finally {
      supervisor.descendants().forEach(tree::add);
      Result stop = run("bin/delayq-supervisor stop", home, env);
      if (!supervisor.waitFor(60, TimeUnit.SECONDS)) {
        supervisor.destroyForcibly();
      }
      tree.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
      Files.deleteIfExists(home.resolve("bin"));   // the link only, before @TempDir cleans up
      System.out.println("stop: " + stop.output() + "\nsupervisor output:\n" + Files.readString(home.resolve("supervisor.out")));
    }
  }

  /** The README's two set-up commands: the one that starts the system, and the test command. */
  record SetUp(String startCommand, String testCommand) {}

  private static SetUp setUp() {
    List<Command> commands = commands(MarkdownPage.readme(), "Set up");
    assertEquals(2, commands.size(), "the README's set-up is two commands: " + commands);
    assertTrue(commands.get(0).text().startsWith("bin/delayq-supervisor start"), commands.get(0).text());
    assertTrue(commands.get(1).text().startsWith("mvn "), commands.get(1).text());
    return new SetUp(commands.get(0).text(), commands.get(1).text());
  }

  /** A command of a README block, its comment cut off, with that comment and its line. */
  record Command(int line, String text, String comment) {}

  /** The commands of the first ```sh block of the section {@code title}. */
  static List<Command> commands(MarkdownPage page, String title) {
    MarkdownPage.CodeBlock block = page.blocksIn(title).stream().filter(b -> b.lang().equals("sh")).findFirst()
        .orElseThrow(() -> new AssertionError("the README has no ```sh block under '## " + title + "'"));
    List<Command> out = new ArrayList<>();
    for (int i = 0; i < block.body().size(); i++) {
      String line = block.body().get(i);
      if (line.isBlank() || line.strip().startsWith("#")) {
        continue;
      }
      int hash = commentStart(line);
      out.add(new Command(block.line() + 1 + i, (hash < 0 ? line : line.substring(0, hash)).strip(),
          hash < 0 ? "" : line.substring(hash + 1).strip()));
    }
    return out;
  }

  /** Where a shell comment starts: a # after a blank, outside quotes; -1 if none. */
  private static int commentStart(String line) {
    char quote = 0;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (quote != 0) {
        quote = c == quote ? 0 : quote;
      } else if (c == '\'' || c == '"') {
        quote = c;
      } else if (c == '#' && (i == 0 || Character.isWhitespace(line.charAt(i - 1)))) {
        return i;
      }
    }
    return -1;
  }

  /**
   * {@code tail -f GLOB  # ... "the line"}: waits for a line of the files GLOB names that matches
   * the quoted text, where "..." stands for anything and each number for any number.
   */
  private static void awaitLogLine(Path home, Command tail) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (System.nanoTime() < deadline) {
      if (!matchingLines(home, tail).isEmpty()) {
        return;
      }
      Thread.sleep(250);
    }
    throw new AssertionError("README:" + tail.line() + ": no line like \"" + quoted(tail) + "\" in "
        + tail.text().substring("tail -f ".length()) + " within 90 s");
  }

  private static List<String> matchingLines(Path home, Command tail) {
    String glob = tail.text().substring("tail -f ".length()).strip();
    PathMatcher files = FileSystems.getDefault().getPathMatcher("glob:" + home.resolve(glob));
    Pattern line = likeQuoted(quoted(tail));
    List<String> out = new ArrayList<>();
    try (Stream<Path> all = Files.walk(home)) {
      for (Path f : (Iterable<Path>) all.filter(files::matches)::iterator) {
        for (String l : Files.readAllLines(f)) {
          if (line.matcher(l).find()) {
            out.add(l);
          }
        }
      }
    } catch (IOException e) {
      // a log being rotated or written: read again at the next look
    }
    return out;
  }

  private static String quoted(Command c) {
    Matcher m = QUOTED.matcher(c.comment());
    if (!m.find()) {
      throw new AssertionError("README:" + c.line() + ": the comment of `" + c.text() + "` quotes no line to wait for");
    }
    return m.group(1);
  }

  /** The quoted text as a pattern: "..." matches anything, a number any number. */
  static Pattern likeQuoted(String text) {
    StringBuilder regex = new StringBuilder();
    Matcher parts = Pattern.compile("\\.\\.\\.|\\d+").matcher(text);
    int at = 0;
    while (parts.find()) {
      regex.append(Pattern.quote(text.substring(at, parts.start())));
      regex.append(parts.group().equals("...") ? ".*?" : "\\d+");
      at = parts.end();
    }
    regex.append(Pattern.quote(text.substring(at)));
    return Pattern.compile(regex.toString());
  }

  /**
   * Its comment quotes the last line of {@code status}, the dashboard's URL on the default port
   * with "..." for the token: the output ends with that line on this run's port and token, and the
   * URL serves the page, the API with the token, and /metrics without one.
   */
  private static void assertStatusEndsWithTheDashboard(Command status, String output, Path home, int webPort)
      throws Exception {
    String token = Files.readString(home.resolve("run/web.token")).strip();
    String quotedLine = quoted(status);
    String defaultPort = defaultWebPort();
    assertTrue(quotedLine.startsWith("dashboard http://127.0.0.1:" + defaultPort + "/#token="),
        "README:" + status.line() + ": `status` should be said to end with the dashboard URL on web.port "
            + defaultPort + ", not: " + quotedLine);
    String expected = quotedLine.replace(":" + defaultPort + "/", ":" + webPort + "/").replace("...", token);
    List<String> lines = output.strip().lines().toList();
    assertEquals(expected, lines.get(lines.size() - 1), "the last line of `status`");

    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    String base = "http://127.0.0.1:" + webPort;
    HttpResponse<String> page = http.send(HttpRequest.newBuilder(URI.create(base + "/")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(200, page.statusCode(), "the dashboard page");
    HttpResponse<String> api = http.send(HttpRequest.newBuilder(URI.create(base + "/api/status"))
        .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, api.statusCode(), "the dashboard's API with the token of the URL: " + api.body());
    HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(200, metrics.statusCode(), "/metrics without a token");
    assertTrue(metrics.body().contains("delayq_jobs_succeeded_total"), "the job's counter on /metrics");
  }

  private static String defaultWebPort() throws IOException {
    JsonNode conf = new ObjectMapper(new YAMLFactory()).readTree(ROOT.resolve("conf/delayq.yml").toFile());
    return conf.path("web").path("port").asText();
  }

  /** Waits until `status --json` shows every child RUNNING (the README's "while the supervisor runs"). */
  private static void awaitAllRunning(Path home, Map<String, String> env, Process supervisor) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    String last = "";
    while (System.nanoTime() < deadline) {
      if (!supervisor.isAlive()) {
        throw new AssertionError("the supervisor exited " + supervisor.exitValue() + ":\n"
            + Files.readString(home.resolve("supervisor.out")));
      }
      Result r = run("bin/delayq-supervisor status --json", home, env);
      last = r.output();
      if (r.code() == 0) {
        JsonNode status = new ObjectMapper().readTree(r.output().lines()
            .filter(l -> l.startsWith("{")).findFirst().orElse("{}"));
        List<String> states = new ArrayList<>();
        status.path("children").forEach(c -> states.add(c.path("state").asText()));
        if (!states.isEmpty() && states.stream().allMatch("RUNNING"::equals)) {
          return;
        }
      }
      Thread.sleep(500);
    }
    throw new AssertionError("not every child RUNNING within 120 s; last status: " + last);
  }

  /** Fails with the fix when the jars bin/ runs are missing (bin/ would build them itself, slowly). */
  private static void requireBuiltJars() {
    for (String module : List.of("supervisor", "scheduler-proc", "worker-proc", "delayq-cli", "bench")) {
      Path jar = ROOT.resolve(module).resolve("target").resolve(module + ".jar");
      if (!Files.isRegularFile(jar) || !Files.isDirectory(jar.resolveSibling("lib"))) {
        throw new AssertionError(jar + " (and lib/ next to it) is missing: run `mvn -DskipTests package` at the"
            + " project root, or run this test in the reactor build (`mvn verify`)");
      }
    }
  }

  record Result(int code, String output) {}

  private static Result run(String command, Path home, Map<String, String> env) throws Exception {
    Path out = Files.createTempFile(home, "command", ".out");
    Process p = bash(command, home, env).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      throw new AssertionError("`" + command + "` did not end within 120 s");
    }
    return new Result(p.exitValue(), Files.readString(out));
  }

  /** {@code bash -c COMMAND} in {@code home}, with {@code env} as its only DELAYQ_* variables. */
  private static ProcessBuilder bash(String command, Path home, Map<String, String> env) {
    ProcessBuilder pb = new ProcessBuilder("bash", "-c", command).directory(home.toFile());
    pb.environment().keySet().removeIf(k -> k.startsWith("DELAYQ_"));
    pb.environment().putAll(env);
    return pb;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}

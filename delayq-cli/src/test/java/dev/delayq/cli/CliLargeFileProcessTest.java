package dev.delayq.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/delayq enqueue --file} streams: a file of large payloads goes in within the CLI's
 * own heap (the launcher's -Xmx128m), because neither the file nor a batch of it is held whole.
 */
class CliLargeFileProcessTest {
  @TempDir
  Path install;

  private final Cli cli = new Cli();

  @Test
  void sixtyLinesOfOneMegabytePayloadsGoInWithinTheLaunchersHeap() throws Exception {
    DelayqLauncher launcher = DelayqLauncher.in(install.resolve("install"));
    Path jobs = install.resolve("big.jsonl");
    String filler = "x".repeat(1_000_000);
    try (BufferedWriter w = Files.newBufferedWriter(jobs, StandardCharsets.UTF_8)) {
      for (int i = 0; i < 60; i++) {
        w.write("{\"type\":\"t\",\"payload\":{\"n\":" + i + ",\"blob\":\"" + filler + "\"},\"delay\":\"1h\"}\n");
      }
    }

    DelayqLauncher.Run r = launcher.run(cli.env, "enqueue", "--file", jobs.toString());

    assertEquals(0, r.exit(), r.toString().length() > 2000 ? r.toString().substring(0, 2000) : r.toString());
    assertEquals("enqueued 60, duplicates 0, rejected 0 (of 60 lines)\n", r.out());
    assertEquals(60, cli.probe.recordCount());
  }
}

package dev.delayq.cli;

import dev.delayq.DelayQueue;
import dev.delayq.EnqueueResult;
import dev.delayq.JobRequest;
import dev.delayq.process.LogText;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.exceptions.JedisException;

/**
 * {@code delayq enqueue --file}: reads a JSON-lines file (or stdin) line by line, checks each
 * line, and enqueues the good ones in pipelined batches. A bad line is rejected with its number
 * and reason and never stops the rest; Redis failing stops the run and says which lines may
 * not have been enqueued.
 */
final class FileEnqueue {
  static final int BATCH = 1000;
  /** Rejections listed one by one in the summary; past this only their count is given. */
  static final int REJECTIONS_LISTED = 100;

  private final DelayqCli cli;
  private final PrintWriter out;
  private final PrintWriter err;
  private final List<JobLine.Rejected> rejected = new ArrayList<>();
  private int lines;
  private int enqueued;
  private int duplicates;
  private int pending;
  private int dead;
  private int finished;

  FileEnqueue(DelayqCli cli, PrintWriter out, PrintWriter err) {
    this.cli = cli;
    this.out = out;
    this.err = err;
  }

  int run(String file) {
    var config = cli.loadConfig();
    long size = -1;
    if (!file.equals("-")) {
      try {
        size = Files.size(Path.of(file));
      } catch (NoSuchFileException e) {
        throw CliException.badInput("jobs file " + file + ": not found");
      } catch (IOException e) {
        throw CliException.badInput("jobs file " + file + ": " + e.getMessage());
      }
    }
    Progress progress = new Progress(err, System.console() != null, size);
    try (DelayQueue queue = DelayQueue.connect(config, cli.redisUrl(config));
        BufferedReader in = open(file)) {
      List<JobLine.Accepted> batch = new ArrayList<>(BATCH);
      long bytes = 0;
      int lineNo = 0;
      int linesShown = 0;
      String line;
      while ((line = in.readLine()) != null) {
        lineNo++;
        bytes += line.getBytes(StandardCharsets.UTF_8).length + 1;
        if (line.isBlank()) {
          continue;
        }
        lines++;
        JobLine parsed = JobLine.parse(lineNo, line);
        if (parsed instanceof JobLine.Accepted a) {
          batch.add(a);
        } else {
          rejected.add((JobLine.Rejected) parsed);
        }
        if (batch.size() == BATCH) {
          send(queue, batch);
          batch.clear();
          progress.update(bytes, lines, enqueued, duplicates, rejected.size());
          linesShown = lines;
        }
      }
      send(queue, batch);
      if (lines > BATCH && lines != linesShown) {
        progress.update(bytes, lines, enqueued, duplicates, rejected.size());
      }
      progress.done();
    } catch (IOException e) {
      throw CliException.badInput("jobs file " + file + ": " + e.getMessage());
    } catch (UncheckedIOException e) {
      throw CliException.badInput("jobs file " + file + ": " + e.getCause().getMessage());
    }
    summary();
    return rejected.isEmpty() ? ExitCodes.OK : ExitCodes.USAGE;
  }

  private BufferedReader open(String file) throws IOException {
    if (file.equals("-")) {
      return new BufferedReader(new InputStreamReader(cli.stdin(), StandardCharsets.UTF_8));
    }
    return Files.newBufferedReader(Path.of(file), StandardCharsets.UTF_8);
  }

  /**
   * Enqueues one batch in one pipeline. DelayQueue refuses a whole batch for one bad job (a
   * check this class does not repeat, such as the payload size), so then each job is sent
   * alone and only the bad one is rejected.
   */
  private void send(DelayQueue queue, List<JobLine.Accepted> batch) {
    if (batch.isEmpty()) {
      return;
    }
    try {
      List<JobRequest> requests = batch.stream().map(JobLine.Accepted::request).toList();
      List<EnqueueResult> results;
      try {
        results = queue.enqueueAll(requests);
      } catch (IllegalArgumentException refused) {
        for (JobLine.Accepted a : batch) {
          try {
            count(queue.enqueue(a.request()));
          } catch (IllegalArgumentException e) {
            rejected.add(new JobLine.Rejected(a.lineNo(), e.getMessage()));
          }
        }
        return;
      }
      results.forEach(this::count);
    } catch (JedisException e) {
      summary();
      out.flush();
      throw new CliException(ExitCodes.REDIS, "Redis failed while enqueueing lines "
          + batch.get(0).lineNo() + "-" + batch.get(batch.size() - 1).lineNo()
          + " (those may or may not be enqueued; the lines before were): " + Failure.rootMessage(e));
    }
  }

  private void count(EnqueueResult r) {
    if (r.accepted()) {
      enqueued++;
    } else {
      duplicates++;
      switch (r.status()) {
        case PENDING -> pending++;
        case DEAD -> dead++;
        case FINISHED -> finished++;
        case ACCEPTED -> throw new IllegalStateException("an accepted job counted as duplicate");
      }
    }
  }

  private void summary() {
    rejected.sort((a, b) -> Integer.compare(a.lineNo(), b.lineNo()));
    String why = duplicates == 0 ? "" : " (" + pending + " still pending, " + finished + " already finished, "
        + dead + " dead)";
    out.println("enqueued " + enqueued + ", duplicates " + duplicates + why + ", rejected " + rejected.size()
        + " (of " + lines + " lines)");
    for (int i = 0; i < Math.min(rejected.size(), REJECTIONS_LISTED); i++) {
      out.println("  line " + rejected.get(i).lineNo() + ": " + LogText.escape(rejected.get(i).reason()));
    }
    if (rejected.size() > REJECTIONS_LISTED) {
      out.println("  ... and " + (rejected.size() - REJECTIONS_LISTED) + " more rejected lines");
    }
    out.flush();
  }
}

package dev.delayq.cli;

import dev.delayq.DelayQueue;
import dev.delayq.EnqueueResult;
import dev.delayq.JobRequest;
import dev.delayq.process.LogText;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
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
 * not have been enqueued. It streams: it holds one line and one batch, never the file, and a
 * batch of large payloads is sent once it holds {@value #BATCH_BYTES} bytes of lines.
 */
final class FileEnqueue {
  static final int BATCH = 1000;
  /** The line bytes a batch holds at most before it is sent (so 1 MB payloads go a few at a time). */
  static final long BATCH_BYTES = 4L << 20;
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
    int maxLineBytes = (int) Math.min(Integer.MAX_VALUE - 16, 2L * config.queue().maxPayloadBytes() + 65_536);
    try (DelayQueue queue = DelayQueue.connect(config, cli.redisUrl(config));
        InputLines in = new InputLines(open(file), maxLineBytes)) {
      List<JobLine.Accepted> batch = new ArrayList<>(BATCH);
      long bytes = 0;
      long batchBytes = 0;
      int linesShown = 0;
      InputLines.Line line;
      while ((line = in.next()) != null) {
        bytes += line.bytes();
        JobLine parsed;
        if (line instanceof InputLines.Text t) {
          if (t.text().isBlank()) {
            continue;
          }
          parsed = JobLine.parse(t.no(), t.text());
        } else {
          InputLines.Bad bad = (InputLines.Bad) line;
          parsed = new JobLine.Rejected(bad.no(), bad.reason());
        }
        lines++;
        if (parsed instanceof JobLine.Accepted a) {
          batch.add(a);
          batchBytes += line.bytes();
        } else {
          rejected.add((JobLine.Rejected) parsed);
        }
        boolean showProgress = lines % BATCH == 0;
        if (batch.size() == BATCH || batchBytes >= BATCH_BYTES || showProgress) {
          send(queue, batch);
          batch.clear();
          batchBytes = 0;
        }
        if (showProgress) {
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

  private InputStream open(String file) throws IOException {
    return file.equals("-") ? cli.stdin() : Files.newInputStream(Path.of(file));
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

package dev.delayq.e2e.handlers;

import dev.delayq.job.JobContext;
import dev.delayq.job.JobHandler;
import dev.delayq.job.JobResult;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * test_ledger: appends "id,attempt,pid" to the file the payload names ("ledger"), outside Redis,
 * so a test that fails Redis over counts runs from a record Redis cannot lose; then sleeps
 * "sleepMs". One write per line on an O_APPEND file: lines of several processes never mix.
 */
public final class LedgerHandler implements JobHandler {
  @Override
  public String type() {
    return "test_ledger";
  }

  @Override
  public JobResult handle(JobContext ctx) throws IOException, InterruptedException {
    Path ledger = Path.of(ctx.payload().path("ledger").asText());
    byte[] line = (ctx.id() + "," + ctx.attempt() + "," + ProcessHandle.current().pid() + "\n")
        .getBytes(StandardCharsets.UTF_8);
    try (FileChannel out = FileChannel.open(ledger, StandardOpenOption.CREATE,
        StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
      out.write(ByteBuffer.wrap(line));
    }
    long sleep = ctx.payload().path("sleepMs").asLong(0);
    if (sleep > 0) {
      Thread.sleep(sleep);
    }
    return JobResult.done();
  }
}

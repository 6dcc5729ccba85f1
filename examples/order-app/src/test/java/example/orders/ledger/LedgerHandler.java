package example.orders.ledger;

import dev.delayq.job.JobContext;
import dev.delayq.spring.DelayqHandler;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Profile;
import org.springframework.stereotype.Component;

/**
 * The process tests' handler, only in an app started with the "ledger" profile (the tests' child
 * JVMs; the example itself never has it): each run of a {@code ledger_job} appends
 * "id,attempt,pid,startMs,dueMs" to the file {@code ledger.file} names, so a test reads the runs
 * of several JVMs, a killed one's included, from one record. One write per line on an O_APPEND
 * file: lines of several processes never mix, and a line written stays written through kill -9.
 */
@Component
@Profile("ledger")
public class LedgerHandler {
  public static final String TYPE = "ledger_job";

  /** The payload: when the test meant the job to fall due (wall clock, one host), and how long it takes. */
  public record LedgerJob(long dueMs, long sleepMs) {}

  private final Path ledger;

  public LedgerHandler(@Value("${ledger.file}") Path ledger) {
    this.ledger = ledger;
  }

  @DelayqHandler(TYPE)
  void run(LedgerJob job, JobContext ctx) throws IOException, InterruptedException {
    long startMs = System.currentTimeMillis();
    byte[] line = (ctx.id() + "," + ctx.attempt() + "," + ProcessHandle.current().pid() + "," + startMs + ","
        + job.dueMs() + "\n").getBytes(StandardCharsets.UTF_8);
    try (FileChannel out = FileChannel.open(ledger, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.APPEND)) {
      out.write(ByteBuffer.wrap(line));
    }
    Thread.sleep(job.sleepMs()); // a job takes a moment, so that some are running when an instance dies
  }
}

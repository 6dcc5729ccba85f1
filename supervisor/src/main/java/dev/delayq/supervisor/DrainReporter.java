package dev.delayq.supervisor;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Says every second, while the workers drain, how many are still running and how many jobs
 * are in flight: to the log and to each {@code stop} client. Its own thread, because it reads
 * Redis, which the control thread must not wait on.
 */
final class DrainReporter extends Thread {
  private static final Logger log = LoggerFactory.getLogger(DrainReporter.class);

  private final Supervisor supervisor;
  private final QueueInspectors queues;
  private final BooleanSupplier draining;
  private final List<Consumer<String>> sinks;

  DrainReporter(Supervisor supervisor, QueueInspectors queues, BooleanSupplier draining, List<Consumer<String>> sinks) {
    super("supervisor-drain-progress");
    setDaemon(true);
    this.supervisor = supervisor;
    this.queues = queues;
    this.draining = draining;
    this.sinks = sinks;
  }

  @Override
  public void run() {
    try {
      while (draining.getAsBoolean()) {
        Thread.sleep(1000);
        if (!draining.getAsBoolean()) {
          return;
        }
        long live = supervisor.snapshot().get(5, TimeUnit.SECONDS).stream()
            .filter(v -> v.role().equals("worker") && v.pid() != null).count();
        String inFlight;
        try {
          inFlight = Long.toString(queues.inFlight());
        } catch (RuntimeException e) {
          inFlight = "? (Redis: " + e.getMessage() + ")";
        }
        String line = "draining: " + live + " worker(s) still running, " + inFlight + " job(s) in flight";
        log.info(line);
        for (Consumer<String> sink : sinks) {
          sink.accept(line);
        }
      }
    } catch (Exception e) {
      log.debug("drain progress ended: {}", e.toString());
    }
  }
}

package dev.delayq.process;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * The one way a delayq process learns it should stop: SIGTERM, SIGINT, or the death of the
 * supervisor that started it (so no child outlives it as an orphan). Handlers only count
 * down a latch; the main thread does the work.
 */
public final class ShutdownSignal {
  private static final Logger log = LoggerFactory.getLogger(ShutdownSignal.class);

  private final CountDownLatch requested = new CountDownLatch(1);
  private volatile String reason = "";

  /** Installs the signal handlers and, when a supervisor PID is given, watches it. */
  public static ShutdownSignal install(String processName, long supervisorPid) {
    ShutdownSignal s = new ShutdownSignal();
    for (String name : new String[] {"TERM", "INT"}) {
      Signal.handle(new Signal(name), sig -> s.request("SIG" + name));
    }
    if (supervisorPid > 0) {
      ProcessHandle.of(supervisorPid).ifPresentOrElse(
          supervisor -> supervisor.onExit().thenRun(
              () -> s.request("supervisor (pid " + supervisorPid + ") is gone")),
          () -> s.request("supervisor (pid " + supervisorPid + ") is not running"));
    }
    return s;
  }

  public void request(String why) {
    if (requested.getCount() > 0) {
      reason = why;
      log.info("shutdown requested: {}", why);
      requested.countDown();
    }
  }

  public boolean isRequested() {
    return requested.getCount() == 0;
  }

  public String reason() {
    return reason;
  }

  public void await() throws InterruptedException {
    requested.await();
  }

  /** Waits up to {@code millis}; true when shutdown was requested. */
  public boolean await(long millis) throws InterruptedException {
    return requested.await(millis, TimeUnit.MILLISECONDS);
  }
}

package dev.delayq.worker;

import dev.delayq.process.LogText;
import dev.delayq.process.RunUntilShutdown;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Enforces handlers' time limits for all consumers of a worker from one thread, so a job runs
 * on its consumer's own thread with no hand-off. Past its limit a handler's thread is
 * interrupted; still running a grace period later, it is declared stuck (a JVM cannot kill a
 * thread): the worker then exits so it can be replaced, and the job is recovered.
 */
final class Watchdog implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Watchdog.class);
  private static final long CHECK_EVERY_MS = 10;

  /** One consumer's current run, as the watchdog sees it. */
  static final class Slot {
    private final String consumer;
    private final Thread thread;
    private volatile long deadlineNanos;
    private volatile long interruptedAtNanos;
    private volatile boolean stuck;
    private volatile boolean cancelled;
    private volatile String job;
    private volatile long startedAtNanos;
    private long limitMs;

    Slot(String consumer, Thread thread) {
      this.consumer = consumer;
      this.thread = thread;
    }

    String consumer() {
      return consumer;
    }

    /** Called by the consumer before a handler runs. */
    synchronized void begin(String jobId, long limitNanos) {
      Thread.interrupted();
      job = jobId;
      cancelled = false;
      limitMs = limitNanos / 1_000_000;
      interruptedAtNanos = 0;
      long now = System.nanoTime();
      startedAtNanos = now;
      deadlineNanos = now + limitNanos;
    }

    /**
     * Called by the consumer after the handler returned or threw; true when it had been
     * interrupted for its time limit. Clears the interrupt so it cannot leak into the next job.
     */
    synchronized boolean end() {
      deadlineNanos = 0;
      boolean timedOut = interruptedAtNanos != 0;
      Thread.interrupted();
      return timedOut;
    }

    boolean isStuck() {
      return stuck;
    }

    /** True once a cancel of the current run was asked for (it stays so until the next begin). */
    boolean isCancelled() {
      return cancelled;
    }

    /** The job of the run in progress, or null between runs. */
    String running() {
      return deadlineNanos == 0 ? null : job;
    }
  }

  private final List<Slot> slots = new CopyOnWriteArrayList<>();
  private final long graceNanos;
  private final Runnable onStuck;
  private volatile long slowAfterNanos;
  private volatile java.util.function.Consumer<String> onSlowRun;
  private volatile boolean closed;
  private Thread thread;

  Watchdog(long graceNanos, Runnable onStuck) {
    this.graceNanos = graceNanos;
    this.onStuck = onStuck;
  }

  Slot register(String consumer, Thread consumerThread) {
    Slot s = new Slot(consumer, consumerThread);
    slots.add(s);
    return s;
  }

  /**
   * Tells {@code listener} (on the watchdog's thread: it must not block) the consumer whose handler
   * has run {@code afterNanos} or more, at each check while it runs on (what the listener can do
   * about it may change from one check to the next).
   */
  void onSlowRun(long afterNanos, java.util.function.Consumer<String> listener) {
    slowAfterNanos = afterNanos;
    onSlowRun = listener;
  }

  /**
   * Starts watching on its own thread. Should that thread not go on, no time limit would hold
   * any more, so {@code onCannotGoOn} is told (the worker exits non-zero).
   */
  void start(java.util.function.Consumer<Throwable> onCannotGoOn) {
    thread = RunUntilShutdown.of("watchdog", this::pass).until(() -> closed)
        .onCannotGoOn(onCannotGoOn, java.time.Duration.ofSeconds(10)).build().start();
  }

  /** One look at every consumer's run; returns when the next is due. */
  long pass() {
    long now = System.nanoTime();
    for (Slot s : slots) {
      check(s, now);
      noteSlow(s, now);
    }
    return now + CHECK_EVERY_MS * 1_000_000;
  }

  /**
   * Cancels the run of {@code jobId}, if a consumer of this worker runs it: sets its cancel flag
   * and interrupts its thread, and from now on gives it the time limit's grace to stop (past
   * it, the worker exits as for a stuck handler). True when it ran here.
   */
  boolean cancel(String jobId) {
    for (Slot s : slots) {
      synchronized (s) {
        if (s.deadlineNanos != 0 && jobId.equals(s.job) && !s.cancelled) {
          long now = System.nanoTime();
          s.cancelled = true;
          s.interruptedAtNanos = now;
          s.deadlineNanos = now;
          s.thread.interrupt();
          log.info("{}: job {} cancelled: its handler is interrupted", s.consumer, LogText.escape(jobId));
          return true;
        }
      }
    }
    return false;
  }

  /** The jobs the consumers run right now. */
  List<String> running() {
    List<String> out = new java.util.ArrayList<>();
    for (Slot s : slots) {
      String job = s.running();
      if (job != null) {
        out.add(job);
      }
    }
    return out;
  }

  /** Tells the slow-run listener, if any, of the slot's run when it has run long enough. */
  void noteSlow(Slot s, long now) {
    java.util.function.Consumer<String> slow = onSlowRun;
    if (slow != null && s.deadlineNanos != 0 && now - s.startedAtNanos >= slowAfterNanos) {
      slow.accept(s.consumer);
    }
  }

  void check(Slot s, long now) {
    long deadline = s.deadlineNanos;
    if (deadline == 0 || now - deadline < 0 || s.stuck) {
      return;
    }
    if (s.interruptedAtNanos == 0) {
      // Under the slot's lock, and re-checked: an interrupt must never land after end(), where
      // it would hit the consumer's next job or its Redis back-off.
      synchronized (s) {
        if (s.deadlineNanos == deadline) {
          s.interruptedAtNanos = now;
          s.thread.interrupt();
        }
      }
    } else if (now - s.interruptedAtNanos >= graceNanos && s.deadlineNanos == deadline) {
      s.stuck = true;
      log.error("{}: job {} ignored its interruption at the {} ms time limit for {} ms more; this "
          + "worker exits so it can be replaced, and the job is recovered", s.consumer, LogText.escape(s.job),
          s.limitMs, graceNanos / 1_000_000);
      onStuck.run();
    }
  }

  @Override
  public void close() {
    closed = true;
    if (thread != null) {
      thread.interrupt();
    }
  }
}

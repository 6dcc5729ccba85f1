package dev.delayq.process;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The one loop under every long-running thread of delayq (consumers, heartbeat, watchdog, the
 * scheduler's forward-and-recover loop, its wake listener): it runs one pass of its role, waits
 * until the pass says the next is due, and goes on until told to stop.
 *
 * <p>It catches every Throwable. A Redis outage is backed off by the role's {@link RedisOutage}
 * and logged by the process's {@link OutageLog}. Any other failure is logged once when the role
 * starts failing and once when it works again, and backed off with jitter (100 ms doubling to
 * 5 s). A role that cannot go on ends its loop and calls {@code onCannotGoOn} (a worker then
 * exits non-zero, so the supervisor takes back its jobs and restarts it): it says so by throwing
 * {@link CannotGoOn}; or the JVM itself is broken (a {@link VirtualMachineError} other than a
 * stack overflow, a {@link LinkageError}); or it kept failing for longer than its give-up time.
 */
public final class RunUntilShutdown implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(RunUntilShutdown.class);
  static final long MIN_BACKOFF_MS = 100;
  static final long MAX_BACKOFF_MS = 5_000;

  /**
   * One pass of a role; returns when the next is due, on System.nanoTime (now or before: at once).
   * A role names the method it hands in {@code pass} ({@code <what>Pass} when it runs two loops),
   * so each loop's body is found by one name.
   */
  @FunctionalInterface
  public interface Pass {
    long run() throws Exception;
  }

  /** How the loop waits between passes. */
  @FunctionalInterface
  public interface Pause {
    void until(long deadlineNanos) throws InterruptedException;
  }

  /** Thrown by a pass that leaves its role in a state it cannot recover from itself. */
  public static final class CannotGoOn extends RuntimeException {
    public CannotGoOn(String message, Throwable cause) {
      super(message, cause);
    }
  }

  private final String subject;
  private final Pass pass;
  private final BooleanSupplier stopping;
  private final Pause pause;
  private final RedisOutage outage;
  private final Consumer<Throwable> onCannotGoOn;
  private final long giveUpAfterNanos;
  private final LongSupplier ticker;
  private final DoubleSupplier random;

  private boolean failing;
  private long failingSinceNanos;
  private int failures;
  private long backoffMs = MIN_BACKOFF_MS;

  private RunUntilShutdown(Builder b) {
    this.subject = b.subject;
    this.pass = b.pass;
    this.stopping = b.stopping;
    this.pause = b.pause;
    this.outage = b.outage;
    this.onCannotGoOn = b.onCannotGoOn;
    this.giveUpAfterNanos = b.giveUpAfter.toNanos();
    this.ticker = b.ticker;
    this.random = b.random;
  }

  /** A loop named {@code subject} (the thread's name and the subject of its log lines). */
  public static Builder of(String subject, Pass pass) {
    return new Builder(subject, pass);
  }

  /** Starts the loop on a daemon thread named after its subject. */
  public Thread start() {
    Thread t = new Thread(this, subject);
    t.setDaemon(true);
    t.start();
    return t;
  }

  @Override
  public void run() {
    while (!stopping.getAsBoolean()) {
      long next;
      try {
        next = pass.run();
        worked();
      } catch (InterruptedException e) {
        if (!stopping.getAsBoolean()) {
          log.warn("{}: interrupted, not for shutdown; goes on", subject);
        }
        continue;
      } catch (JedisException e) {
        if (outage == null) {
          next = failed(e);
        } else {
          next = ticker.getAsLong() + outage.failed(e) * 1_000_000;
        }
      } catch (Throwable t) {
        if (cannotGoOn(t)) {
          giveUp(t);
          return;
        }
        next = failed(t);
        if (failing && ticker.getAsLong() - failingSinceNanos > giveUpAfterNanos) {
          giveUp(new CannotGoOn("failing for " + Duration.ofNanos(giveUpAfterNanos).toSeconds()
              + " s (" + failures + " times)", t));
          return;
        }
      }
      if (next - ticker.getAsLong() > 0 && !stopping.getAsBoolean()) {
        try {
          pause.until(next);
        } catch (InterruptedException e) {
          // woken: for shutdown the loop ends above, else it goes on at once
        }
      }
    }
  }

  private void worked() {
    if (outage != null) {
      outage.succeeded();
    }
    if (failing) {
      log.info("{}: works again after {} failure(s) in {} ms", subject, failures,
          (ticker.getAsLong() - failingSinceNanos) / 1_000_000);
      failing = false;
      failures = 0;
      backoffMs = MIN_BACKOFF_MS;
    }
  }

  /** Logs the first failure of a run of them, and returns when to try again. */
  private long failed(Throwable t) {
    failures++;
    if (!failing) {
      failing = true;
      failingSinceNanos = ticker.getAsLong();
      backoffMs = MIN_BACKOFF_MS;
      log.error("{}: unexpected failure; it goes on, backing off (logged again only when it works)",
          subject, t);
    } else {
      backoffMs = Math.min(MAX_BACKOFF_MS, backoffMs * 2);
    }
    return ticker.getAsLong() + Jitter.spread(backoffMs, random.getAsDouble()) * 1_000_000;
  }

  static boolean cannotGoOn(Throwable t) {
    return t instanceof CannotGoOn || t instanceof LinkageError
        || (t instanceof VirtualMachineError && !(t instanceof StackOverflowError));
  }

  private void giveUp(Throwable t) {
    log.error("{}: cannot go on: {}", subject, t.toString(), t);
    onCannotGoOn.accept(t);
  }

  /** The settings of a loop; every one but the subject and the pass has a default. */
  public static final class Builder {
    private final String subject;
    private final Pass pass;
    private BooleanSupplier stopping = () -> false;
    private Pause pause = RunUntilShutdown::sleepUntil;
    private RedisOutage outage;
    private Consumer<Throwable> onCannotGoOn = t -> { };
    private Duration giveUpAfter = Duration.ofDays(365);
    private LongSupplier ticker = System::nanoTime;
    private DoubleSupplier random = () -> ThreadLocalRandom.current().nextDouble();

    private Builder(String subject, Pass pass) {
      this.subject = Objects.requireNonNull(subject);
      this.pass = Objects.requireNonNull(pass);
    }

    /** The loop ends once this says so (checked before every pass and wait). */
    public Builder until(BooleanSupplier stopping) {
      this.stopping = stopping;
      return this;
    }

    /** How to wait between passes (default: sleep, cut short by an interrupt). */
    public Builder pausingWith(Pause pause) {
      this.pause = pause;
      return this;
    }

    /** Redis failures go to this outage: its backoff, and its process's outage log. */
    public Builder riding(RedisOutage outage) {
      this.outage = outage;
      return this;
    }

    /** Called once when the role cannot go on, or has failed without a break for {@code giveUpAfter}. */
    public Builder onCannotGoOn(Consumer<Throwable> onCannotGoOn, Duration giveUpAfter) {
      this.onCannotGoOn = onCannotGoOn;
      this.giveUpAfter = giveUpAfter;
      return this;
    }

    /** For tests: the clock (System.nanoTime) and the random numbers of the jitter. */
    Builder clock(LongSupplier ticker, DoubleSupplier random) {
      this.ticker = ticker;
      this.random = random;
      return this;
    }

    public RunUntilShutdown build() {
      return new RunUntilShutdown(this);
    }
  }

  private static void sleepUntil(long deadlineNanos) throws InterruptedException {
    long ms = (deadlineNanos - System.nanoTime() + 999_999) / 1_000_000;
    if (ms > 0) {
      Thread.sleep(ms);
    }
  }
}

package dev.delayq.supervisor;

import java.time.Duration;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One supervised child: its state machine, restart backoff and budget, and the facts
 * {@code status} shows. It never touches a process itself; the {@link Supervisor}'s control
 * thread launches and signals, then tells the child what happened. Not thread-safe: only that
 * thread may call it.
 */
final class Child {
  private static final Logger log = LoggerFactory.getLogger(Child.class);

  private final ChildSpec spec;
  private final Backoff backoff;
  private final RestartBudget budget;
  private final Duration resetAfter;

  private ChildState state = ChildState.STOPPED;
  private long pid;
  private long startedAt;
  private long retryAt;
  private long killAt;
  private boolean killSent;
  private boolean backoffResetDone;
  private int restarts;
  private Integer lastExitCode;

  Child(ChildSpec spec, Backoff backoff, RestartBudget budget, Duration resetAfter) {
    this.spec = spec;
    this.backoff = backoff;
    this.budget = budget;
    this.resetAfter = resetAfter;
  }

  ChildSpec spec() {
    return spec;
  }

  String name() {
    return spec.name();
  }

  ChildState state() {
    return state;
  }

  /** The PID of its live process, 0 when there is none. */
  long pid() {
    return pid;
  }

  int restarts() {
    return restarts;
  }

  /**
   * The one writer of {@link #state}: refuses a move the table in {@link ChildState} does not
   * allow, naming both states, and logs one line per change.
   */
  void moveTo(ChildState next, String reason) {
    if (!state.canMoveTo(next)) {
      throw new IllegalStateException(name() + ": illegal move " + state + " -> " + next
          + " (" + reason + ")");
    }
    String line = String.format("%s %s -> %s (%s)", name(), state, next, reason);
    if (next == ChildState.FATAL) {
      log.error(line);
    } else if (next == ChildState.BACKOFF) {
      log.warn(line);
    } else {
      log.info(line);
    }
    state = next;
  }

  /** A process was launched for this child. */
  void launched(long newPid, long now) {
    boolean restart = state == ChildState.BACKOFF;
    moveTo(ChildState.STARTING, restart ? "restart " + (restarts + 1) + ", pid " + newPid : "pid " + newPid);
    if (restart) {
      restarts++;
    }
    pid = newPid;
    startedAt = now;
    killSent = false;
    backoffResetDone = false;
  }

  /**
   * The process exited with {@code code} (128 + n for signal n): decides, by the restart policy
   * and budget, whether it is left alone, restarted after a backoff, or given up on.
   */
  ChildState onExit(int code, long now) {
    if (!state.live()) {
      throw new IllegalStateException(name() + ": exit reported in state " + state);
    }
    lastExitCode = code;
    String exit = "pid " + pid + " " + describeExit(code) + " after " + seconds(now - startedAt);
    pid = 0;
    if (state == ChildState.STOPPING) {
      moveTo(ChildState.STOPPED, exit);
    } else if (!spec.restartsAfter(code)) {
      moveTo(ChildState.EXITED, exit + "; not restarted (" + spec.restart().name().toLowerCase(Locale.ROOT) + ")");
    } else if (!budget.tryRestart(now)) {
      moveTo(ChildState.FATAL, exit + "; more than " + budget.intensity()
          + " restarts within " + seconds(budget.period().toNanos()) + ": left down until the next reload");
    } else {
      Duration wait = backoff.next();
      retryAt = now + wait.toNanos();
      moveTo(ChildState.BACKOFF, exit + "; restart in " + seconds(wait.toNanos()));
    }
    return state;
  }

  /** Time passed: a child alive past its grace is RUNNING; a long healthy run resets its backoff. */
  void onTick(long now) {
    if (state == ChildState.STARTING && now - startedAt >= spec.startGrace().toNanos()) {
      moveTo(ChildState.RUNNING, "up " + seconds(now - startedAt));
    } else if (state == ChildState.RUNNING && !backoffResetDone
        && now - startedAt >= resetAfter.toNanos()) {
      backoffResetDone = true;
      backoff.reset();
    }
  }

  /** True when its backoff is over and it should be launched again. */
  boolean dueToStart(long now) {
    return state == ChildState.BACKOFF && now - retryAt >= 0;
  }

  /** SIGTERM was sent: SIGKILL is due {@code timeout} later. */
  void stopping(long now, Duration timeout, String why) {
    moveTo(ChildState.STOPPING, why + "; SIGKILL in " + seconds(timeout.toNanos()));
    killAt = now + timeout.toNanos();
  }

  /** True once, when a STOPPING child passed its deadline and must be SIGKILLed. */
  boolean killDue(long now) {
    if (state == ChildState.STOPPING && !killSent && now - killAt >= 0) {
      killSent = true;
      return true;
    }
    return false;
  }

  /** A child with no process (BACKOFF, EXITED, FATAL) is taken down for good. */
  void stopIdle(String why) {
    if (state.live()) {
      throw new IllegalStateException(name() + " is " + state + ": stop its process first");
    }
    if (state != ChildState.STOPPED) {
      moveTo(ChildState.STOPPED, why);
    }
  }

  /** Clears the verdict of FATAL (or the end of EXITED) so a reload can start it afresh. */
  void forgive() {
    budget.reset();
    backoff.reset();
  }

  ChildView view(long now) {
    return new ChildView(name(), spec.role().json(), pid == 0 ? null : pid, state.name(), restarts,
        lastExitCode, state.live() ? (now - startedAt) / 1_000_000 : 0);
  }

  static String describeExit(int code) {
    if (code > 128 && code < 160) {
      return "killed by signal " + (code - 128) + " (exit code " + code + ")";
    }
    return code < 0 ? "could not be started" : "exited with code " + code;
  }

  private static String seconds(long nanos) {
    return String.format(Locale.ROOT, "%.1fs", nanos / 1e9);
  }
}

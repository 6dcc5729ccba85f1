package dev.delayq.supervisor;

import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Everything that can happen to the supervisor, as one closed set. Signal handlers, exit
 * callbacks, the timer and control-socket threads only put events on the queue; the control
 * thread alone acts on them (supervisord's run loop, sidekiq's self-pipe).
 */
sealed interface Event {

  /** A child's process ended; {@code code} is 128 + n when signal n killed it. */
  record ChildExited(Child child, long pid, int code) implements Event {}

  /** The timer: time-driven transitions, due restarts, SIGKILL deadlines. */
  record Tick() implements Event {}

  /** A snapshot of the child table for {@code status} and the dashboard. */
  record StatusRequest(CompletableFuture<Overview> reply) implements Event {}

  /**
   * Resize the worker pool to {@code workers} (empty: keep the count) and start every FATAL or
   * EXITED child afresh; replies with a one-line summary.
   */
  record Resize(OptionalInt workers, CompletableFuture<String> reply) implements Event {}

  /**
   * Restart one child now (the dashboard's restart button): a live one is stopped as on
   * scale-down (SIGTERM, drain, SIGKILL at its stop timeout) and started again once down; one
   * with no process (BACKOFF, EXITED, FATAL) starts at once. Replies with a one-line summary,
   * or fails with IllegalArgumentException (no such child) or IllegalStateException.
   */
  record Restart(String name, CompletableFuture<String> reply) implements Event {}

  /**
   * Drain and stop everything; {@code done} completes once every child is down. A second stop
   * while one runs joins it. {@code progress} receives the drain progress lines.
   */
  record Stop(Duration timeout, String why, Consumer<String> progress, CompletableFuture<Void> done)
      implements Event {}
}

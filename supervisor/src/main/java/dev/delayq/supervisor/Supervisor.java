package dev.delayq.supervisor;

import dev.delayq.config.DelayqConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the children running: the embedded Redis (when configured), one scheduler and N
 * workers. One control thread (the one calling {@link #run}) owns the child table and acts on
 * {@link Event}s; every other thread only posts events through the public-facing methods.
 */
public final class Supervisor {
  private static final Logger log = LoggerFactory.getLogger(Supervisor.class);
  private static final Duration TICK = Duration.ofMillis(200);

  private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
  private final Ticker ticker;
  private final ChildSpecs specs;
  private final ChildProcesses processes;
  private final InstantRecovery recovery;
  private final QueueInspectors queues;
  private final Runnable redisCheck;

  // owned by the control thread
  private final List<Child> workers = new ArrayList<>();
  private final List<Child> retiring = new ArrayList<>();
  private final Set<Child> restartWhenDown = new HashSet<>();
  private Child redis;
  private Child scheduler;
  private final int initialWorkers;
  // written by the control thread alone (moveTo), read by the DrainReporter's thread too
  private volatile StopSequence stage = StopSequence.RUNNING;
  private Duration stopTimeout;
  private final List<CompletableFuture<Void>> stopWaiters = new ArrayList<>();
  // read by the DrainReporter's thread
  private final List<Consumer<String>> progressSinks = new CopyOnWriteArrayList<>();

  /**
   * {@code redisCheck} runs once Redis answers (the embedded one is up), before the scheduler
   * and the workers start; what it throws ends {@link #run}. {@code ticker} is the clock of
   * every backoff, restart budget, start grace and stop deadline.
   */
  public Supervisor(ChildSpecs specs, ChildLauncher launcher, InstantRecovery recovery, QueueInspectors queues,
      int workers, Ticker ticker, Runnable redisCheck) {
    this.redisCheck = redisCheck;
    this.specs = specs;
    this.processes = new ChildProcesses(launcher, ticker, events::add);
    this.recovery = recovery;
    this.queues = queues;
    this.initialWorkers = workers;
    this.ticker = ticker;
  }

  // ---- any thread ------------------------------------------------------------------------

  public CompletableFuture<List<ChildView>> snapshot() {
    return overview().thenApply(Overview::children);
  }

  public CompletableFuture<Overview> overview() {
    CompletableFuture<Overview> reply = new CompletableFuture<>();
    events.add(new Event.StatusRequest(reply));
    return reply;
  }

  /**
   * Resizes the pool to {@code workerCount} (empty: keep the size, restart what gave up).
   *
   * @throws IllegalArgumentException for a count below 0 or above worker.maxProcesses
   */
  public CompletableFuture<String> resize(OptionalInt workerCount) {
    int max = specs.config().worker().maxProcesses();
    if (workerCount.isPresent() && (workerCount.getAsInt() < 0 || workerCount.getAsInt() > max)) {
      throw new IllegalArgumentException("workers must be between 0 and worker.maxProcesses (" + max
          + ", as read at start), got " + workerCount.getAsInt());
    }
    CompletableFuture<String> reply = new CompletableFuture<>();
    events.add(new Event.Resize(workerCount, reply));
    return reply;
  }

  public CompletableFuture<String> restart(String childName) {
    CompletableFuture<String> reply = new CompletableFuture<>();
    events.add(new Event.Restart(childName, reply));
    return reply;
  }

  /** Starts (or joins) the stop; {@code progress} may be null. */
  public CompletableFuture<Void> stop(Duration timeout, String why, Consumer<String> progress) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    events.add(new Event.Stop(timeout, why, progress, done));
    return done;
  }

  /** The read side of every queue served. */
  public QueueInspectors queues() {
    return queues;
  }

  // ---- the control thread ------------------------------------------------------------------

  /** Starts every child, then runs the control loop until a stop has taken everything down. */
  public void run() throws InterruptedException {
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "supervisor-timer");
      t.setDaemon(true);
      return t;
    });
    timer.scheduleAtFixedRate(() -> events.add(new Event.Tick()), TICK.toMillis(), TICK.toMillis(),
        TimeUnit.MILLISECONDS);
    try {
      startAll();
      while (stage != StopSequence.DONE) {
        handleSafely(events.take());
      }
    } finally {
      timer.shutdownNow();
    }
  }

  /** Kills whatever runs: the way out when start-up itself failed. */
  public void abort() {
    processes.killAll();
  }

  /** The timer's event, posted by hand: a test steps time with its own ticker. */
  void tick() {
    events.add(new Event.Tick());
  }

  /** Handles every event queued now, without waiting: {@link #run}'s loop, one step at a time. */
  void handlePending() {
    for (Event event = events.poll(); event != null; event = events.poll()) {
      handleSafely(event);
    }
  }

  private void handleSafely(Event event) {
    try {
      handle(event);
    } catch (RuntimeException e) {
      // a bug in one event's handling must not take the supervisor, and so every child, down
      log.error("supervisor: handling {} failed; running on", event, e);
    }
  }

  /** Starts the embedded Redis (and waits for it), then the scheduler and the workers. */
  void startAll() throws InterruptedException {
    if (specs.config().redis().embedded()) {
      redis = newChild(specs.redis());
      processes.launchRedis(redis);
      log.info("embedded Redis answers on 127.0.0.1:{}", specs.config().redis().embeddedPort());
    }
    redisCheck.run();
    scheduler = newChild(specs.scheduler());
    processes.launch(scheduler);
    for (int i = 1; i <= initialWorkers; i++) {
      addWorker();
    }
  }

  /**
   * Starts one more worker, named with the lowest number no worker holds, draining ones
   * included: two processes never share a name, and so neither a log file nor the labels of
   * their metrics. {@code workers} stays ordered by number.
   */
  private void addWorker() {
    Set<String> taken = new HashSet<>();
    Stream.concat(workers.stream(), retiring.stream()).forEach(c -> taken.add(c.name()));
    int n = 1;
    while (taken.contains(ChildSpecs.workerName(n))) {
      n++;
    }
    Child w = newChild(specs.worker(n));
    int at = 0;
    while (at < workers.size() && ChildSpecs.workerNumber(workers.get(at).name()) < n) {
      at++;
    }
    workers.add(at, w);
    processes.launch(w);
  }

  private Child newChild(ChildSpec spec) {
    DelayqConfig.Supervisor s = specs.config().supervisor();
    return new Child(spec, new Backoff(s.restartBackoffMin(), s.restartBackoffMax()),
        new RestartBudget(s.restartIntensity(), s.restartPeriod()), s.restartResetAfter());
  }

  private void handle(Event event) {
    if (event instanceof Event.ChildExited e) {
      onChildExited(e);
    } else if (event instanceof Event.Tick) {
      onTick();
    } else if (event instanceof Event.StatusRequest r) {
      long now = ticker.nanos();
      r.reply().complete(new Overview(all().map(c -> c.view(now)).toList(), workers.size()));
    } else if (event instanceof Event.Resize r) {
      onResize(r);
    } else if (event instanceof Event.Restart r) {
      onRestart(r);
    } else if (event instanceof Event.Stop s) {
      onStop(s);
    } else {
      throw new IllegalStateException("unknown event " + event);
    }
  }

  private Stream<Child> all() {
    return Stream.of(Stream.ofNullable(redis), Stream.ofNullable(scheduler), workers.stream(), retiring.stream())
        .flatMap(s -> s);
  }

  private void onChildExited(Event.ChildExited e) {
    Child child = e.child();
    if (child.pid() != e.pid()) {
      return; // an exit already handled, or of a process replaced since
    }
    processes.exited(child);
    if (child.spec().role() == Role.WORKER) {
      // before anything else, so its jobs run again while its replacement is still starting
      recovery.workerGone(child.name(), e.pid(), e.code(), ticker.nanos());
    }
    child.onExit(e.code(), ticker.nanos());
    if (child.state() == ChildState.STOPPED) {
      retiring.remove(child);
      if (restartWhenDown.remove(child) && stage == StopSequence.RUNNING) {
        processes.launch(child);
      }
    }
    if (stage != StopSequence.RUNNING) {
      advanceStop();
    }
  }

  private void onTick() {
    long now = ticker.nanos();
    recovery.retryPending(now);
    for (Child child : all().toList()) {
      child.onTick(now);
      if (stage == StopSequence.RUNNING && child.dueToStart(now)) {
        processes.launch(child);
      }
      if (child.killDue(now)) {
        processes.kill(child);
      }
    }
    if (stage != StopSequence.RUNNING) {
      advanceStop();
    }
  }

  private void onResize(Event.Resize r) {
    if (stage != StopSequence.RUNNING) {
      r.reply().completeExceptionally(new IllegalStateException("the supervisor is stopping"));
      return;
    }
    int before = workers.size();
    int target = r.workers().orElse(before);
    List<String> notes = new ArrayList<>();
    // removed: the highest-numbered workers drain (supervisord's reloadConfig diff)
    for (int i = before; i > target; i--) {
      Child w = workers.remove(i - 1);
      restartWhenDown.remove(w);
      processes.takeDown(w, w.spec().stopTimeout(), "scaled down to " + target + " workers");
      if (w.state().live()) {
        retiring.add(w);
      }
    }
    // kept: whatever a restart policy gave up on gets a fresh start
    for (Child child : Stream.of(Stream.ofNullable(redis), Stream.ofNullable(scheduler), workers.stream())
        .flatMap(x -> x).toList()) {
      if (child.state() == ChildState.FATAL || child.state() == ChildState.EXITED) {
        notes.add("restarted " + child.name() + " (was " + child.state() + ")");
        child.forgive();
        processes.launch(child);
      }
    }
    // added
    for (int i = before; i < target; i++) {
      addWorker();
    }
    if (target == 0) {
      notes.add("no job will run until workers are added again (reload --workers N); the scheduler "
          + "keeps moving due jobs to ready, where they wait");
    }
    String summary = (before == target ? "workers: " + target : "workers: " + before + " -> " + target)
        + (notes.isEmpty() ? "" : "; " + String.join(", ", notes));
    log.info("reload: {}", summary);
    r.reply().complete(summary);
  }

  private void onRestart(Event.Restart r) {
    String name = r.name();
    Child child = Stream.concat(Stream.ofNullable(scheduler), workers.stream())
        .filter(c -> c.name().equals(name)).findFirst().orElse(null);
    if (stage != StopSequence.RUNNING) {
      r.reply().completeExceptionally(new IllegalStateException("the supervisor is stopping"));
    } else if (child == null) {
      boolean isRedis = redis != null && redis.name().equals(name);
      boolean isRetiring = retiring.stream().anyMatch(c -> c.name().equals(name));
      r.reply().completeExceptionally(isRedis
          ? new IllegalStateException("the embedded Redis restarts only with the supervisor")
          : isRetiring ? new IllegalStateException(name + " is being removed by a scale-down")
          : new IllegalArgumentException("no child named '" + name + "'"));
    } else if (child.state() == ChildState.STOPPING) {
      r.reply().complete(name + " is already stopping; it starts again once it is down");
    } else if (child.state().live()) {
      long pid = child.pid();
      restartWhenDown.add(child);
      processes.takeDown(child, child.spec().stopTimeout(), "restart requested");
      log.info("restart: {} (pid {}) stops and starts again", name, pid);
      r.reply().complete(name + " (pid " + pid + "): SIGTERM; it starts again once it is down");
    } else {
      ChildState was = child.state();
      child.forgive();
      processes.launch(child);
      r.reply().complete(name + " started (was " + was + ")");
    }
  }

  private void onStop(Event.Stop s) {
    if (s.progress() != null) {
      progressSinks.add(s.progress());
    }
    if (stage == StopSequence.DONE) {
      s.done().complete(null);
      return;
    }
    stopWaiters.add(s.done());
    if (stage != StopSequence.RUNNING) {
      return;
    }
    log.info("stopping ({}): draining {} worker(s), SIGKILL after {}s; then the scheduler{}",
        s.why(), workers.size() + retiring.size(), s.timeout().toSeconds(), redis == null ? "" : ", then Redis");
    stopTimeout = s.timeout();
    moveTo(StopSequence.WORKERS);
    new DrainReporter(this, queues, () -> stage == StopSequence.WORKERS, progressSinks).start();
    advanceStop();
  }

  /** The one writer of {@link #stage}: enters the next step and takes its children down. */
  private void moveTo(StopSequence next) {
    if (next != stage.next()) {
      throw new IllegalStateException("the stop sequence cannot move from " + stage + " to " + next);
    }
    stage = next;
    for (Child child : stageChildren()) {
      processes.takeDown(child, stage == StopSequence.WORKERS ? stopTimeout : child.spec().stopTimeout(), "stop");
    }
  }

  /** Moves on past every step whose children are all down; at DONE, tells the stop's waiters. */
  private void advanceStop() {
    while (stage != StopSequence.DONE && stageChildren().stream().allMatch(c -> c.state() == ChildState.STOPPED)) {
      moveTo(stage.next());
    }
    if (stage == StopSequence.DONE) {
      if (!recovery.idle()) {
        log.warn("instant recovery could not finish before stop; the scheduler recovers those jobs "
            + "after their heartbeat expires on the next start");
      }
      log.info("every child is down");
      stopWaiters.forEach(f -> f.complete(null));
    }
  }

  private List<Child> stageChildren() {
    return switch (stage) {
      case RUNNING -> List.of();
      case WORKERS -> Stream.concat(workers.stream(), retiring.stream()).toList();
      case SCHEDULER -> scheduler == null ? List.of() : List.of(scheduler);
      case REDIS -> redis == null ? List.of() : List.of(redis);
      case DONE -> List.of();
    };
  }
}

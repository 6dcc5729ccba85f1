package dev.delayq.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.delayq.config.Durations;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code delayq bench}: measures what users of a delayed queue care about, with real worker
 * processes on a private Redis, and prints a table plus the same figures as JSON.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = {"Measure delayq on this machine: enqueue, forward, drain, precision, memory, supervisor, ratelimit, queues, browse, ticks, soak.",
        "ticks (not in all): an every-second schedule for --seconds s, one scheduler; lateness of each",
        "tick's handler start against its tick time.",
        "soak (not in all) runs for --duration at --rate with a worker kill -9 every --kill-every.",
        "backlog (not in all): the figures of an empty queue beside those of one holding --pending jobs",
        "due over 24 h (enqueue, drain, lateness, the slowest Redis call of check/recover/stats/browse,",
        "check's heap, Redis memory per pending job).",
        "batch (not in all): jobs per second through a batch of --n jobs (add, drain to its callback)",
        "beside the same jobs as plain ones, with Redis CPU per job.",
        "Starts a private redis-server (no persistence) unless --redis is given, and real",
        "scheduler and worker JVMs from the built jars. Repeated measures report the median."},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:all measures ran", "1:a measure failed", "2:bad arguments"})
public final class BenchMain implements Callable<Integer> {
  private static final List<String> MEASURES =
      List.of("enqueue", "forward", "drain", "precision", "memory", "supervisor", "ratelimit", "queues", "browse");
  /** Measures run only when named: they take wall-clock time whatever the machine. */
  private static final List<String> ON_REQUEST = List.of("ticks", "pipeline", "backlog", "batch");

  @Parameters(index = "0", defaultValue = "all", paramLabel = "MEASURE",
      description = "enqueue, forward, drain, precision, memory, supervisor, ratelimit, queues, browse, ticks, soak, backlog, "
          + "batch or all (all: every one but ticks, soak, backlog and batch; default: all)")
  String measure;

  @Option(names = "--n", defaultValue = "100000", description = "jobs per measure (default 100000)")
  int n;

  @Option(names = "--workers", description = "worker processes for drain, precision, ratelimit, queues and ticks (default 1) and soak (default 2)")
  Integer workers;

  @Option(names = "--threads", defaultValue = "8", description = "consumer threads per worker (default 8)")
  int threads;

  @Option(names = "--rate",
      description = "ratelimit: the limit in starts per second (default 500; its jobs are min(--n, 10 s of it)); "
          + "soak: jobs enqueued per second (default 2000); precision: the sustained rate in jobs per second (default 5000)")
  Integer rate;

  @Option(names = "--payload-bytes", defaultValue = "100", description = "payload size (default 100)")
  int payloadBytes;

  @Option(names = "--runs", defaultValue = "3", description = "repetitions of enqueue, forward, drain, memory (default 3)")
  int runs;

  @Option(names = "--sustain-seconds", description = "length of the sustained (--rate) precision run (default 30; 3 when --n < 10000)")
  Integer sustainSeconds;

  @Option(names = "--seconds", defaultValue = "60", description = "ticks: how many ticks of the every-second schedule (default 60)")
  int seconds;

  @Option(names = "--redis", description = "use this Redis instead of a private one (its data is not touched outside bench-* queues)")
  String redisUrl;

  @Option(names = "--cluster", paramLabel = "SEEDS|local",
      description = "run on a Redis Cluster: its seed nodes (host:port,...), or 'local' for a private "
          + "cluster of three masters on loopback (redis-cli --cluster create); figures then show how "
          + "the Redis CPU was split over the masters")
  String cluster;

  @Option(names = "--shards", defaultValue = "1", paramLabel = "K",
      description = "queue.shards of the bench queues (default 1)")
  int shards;

  @Option(names = "--replica-acks", defaultValue = "0", paramLabel = "N",
      description = "redis.replicaAcks for the producer and workers: every state change waits for N "
          + "replicas (the private Redis gets N replicas on loopback) (default 0)")
  int replicaAcks;

  @Option(names = "--duration", defaultValue = "10m", converter = DurationConverter.class,
      description = "soak: how long jobs are enqueued (default 10m)")
  Duration duration;


  @Option(names = "--max-delay", defaultValue = "60s", converter = DurationConverter.class,
      description = "soak: delays are spread evenly over 0 to this (default 60s)")
  Duration maxDelay;

  @Option(names = "--kill-every", defaultValue = "60s", converter = DurationConverter.class,
      description = "soak: one worker gets SIGKILL this often while enqueueing (default 60s)")
  Duration killEvery;

  @Option(names = "--pending", defaultValue = "10000000",
      description = "backlog: pending jobs of the backlog, due over 24 h (default 10000000); --n is the jobs "
          + "of each enqueue and drain figure")
  long pending;

  @Option(names = "--json", description = "also write the figures to this file")
  Path json;

  @Option(names = "--home", description = "delayq home with the built jars (default: $DELAYQ_HOME or the working directory)")
  Path home;

  public static void main(String[] args) {
    System.exit(new CommandLine(new BenchMain()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    List<String> wanted = measure.equals("all")
        ? MEASURES
        : List.of(measure);
    for (String m : wanted) {
      if (!MEASURES.contains(m) && !ON_REQUEST.contains(m) && !m.equals("soak")) {
        throw new CommandLine.ParameterException(new CommandLine(this), "unknown measure '" + m
            + "' (enqueue, forward, drain, precision, memory, supervisor, ratelimit, queues, browse, ticks, pipeline, soak, "
            + "backlog, all)");
      }
    }
    if (rate != null && rate < 1 || duration.isNegative() || duration.isZero() || maxDelay.isNegative()
        || killEvery.isNegative() || killEvery.isZero()) {
      throw new CommandLine.ParameterException(new CommandLine(this),
          "--rate must be at least 1, --duration and --kill-every longer than 0, --max-delay not negative");
    }
    Path root = home != null ? home : Path.of(System.getenv().getOrDefault("DELAYQ_HOME", "")).toAbsolutePath();
    Path work = Files.createTempDirectory("delayq-bench");
    Map<String, Object> results = new LinkedHashMap<>();
    if (seconds < 1 || seconds > 86_400) {
      throw new CommandLine.ParameterException(new CommandLine(this), "--seconds must be 1 to 86400, got " + seconds);
    }
    if (rate != null && rate > 100_000) {
      throw new CommandLine.ParameterException(new CommandLine(this), "--rate must be 1 to 100000, got " + rate);
    }
    if (pending < 1 || pending > 1_000_000_000L) {
      throw new CommandLine.ParameterException(new CommandLine(this), "--pending must be 1 to 1000000000, got " + pending);
    }
    if (wanted.contains("backlog") && cluster != null) {
      throw new CommandLine.ParameterException(new CommandLine(this),
          "backlog reads one Redis's SLOWLOG: leave out --cluster");
    }
    if (replicaAcks < 0 || replicaAcks > 5) {
      throw new CommandLine.ParameterException(new CommandLine(this), "--replica-acks must be 0 to 5");
    }
    if (shards < 1 || shards > 64) {
      throw new CommandLine.ParameterException(new CommandLine(this), "--shards must be 1 to 64");
    }
    if (cluster != null && redisUrl != null) {
      throw new CommandLine.ParameterException(new CommandLine(this), "give --redis or --cluster, not both");
    }
    try (BenchRedis redis = BenchRedis.start(redisUrl, cluster, replicaAcks)) {
      Measures measures = new Measures(redis, root, work, payloadBytes, shards);
      results.put("machine", Map.of("cores", Runtime.getRuntime().availableProcessors(),
          "redis_version", redis.version(), "java", System.getProperty("java.version"),
          "replica_acks", replicaAcks, "redis", redis.cluster().isEmpty() ? "standalone"
              : "cluster of " + redis.cpuByMaster().size() + " masters", "shards", shards));
      int sustain = sustainSeconds != null ? sustainSeconds : (n < 10_000 ? 3 : 30);
      for (String m : wanted) {
        System.err.println("bench: " + m + " ...");
        results.put(m, switch (m) {
          case "enqueue" -> Medians.of(runs, () -> measures.enqueue(n, 50));
          case "forward" -> Medians.of(runs, () -> measures.forward(n, 1000));
          case "drain" -> Medians.of(runs, () -> measures.drain(n, workersOr(1), threads));
          case "precision" -> measures.precision(Math.min(n, 2000), 10, workersOr(1), threads, rateOr(5000), sustain);
          case "soak" -> new SoakRun(measures).run(duration, rateOr(2000), maxDelay, killEvery, workersOr(2), threads);
          case "memory" -> Medians.of(runs, () -> measures.memory(n));
          case "queues" -> Medians.of(runs, () -> measures.queues(n, workersOr(1), threads));
          case "ratelimit" -> measures.rateLimit(Math.min(n, 10 * rateOr(500)), workersOr(1), threads, rateOr(500));
          case "browse" -> measures.browse(n);
          case "ticks" -> measures.ticks(seconds, workersOr(1), threads);
          case "pipeline" -> measures.pipeline(n);
          case "backlog" -> new BacklogRun(measures).run(pending, n, workersOr(1), threads);
          case "batch" -> Medians.of(runs, () -> new BatchRun(measures).run(n, workersOr(1), threads));
          default -> measures.supervision(threads);
        });
      }
    }
    System.out.print(Report.table(results));
    if (json != null) {
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(json.toFile(), results);
      System.out.println("figures written to " + json);
    }
    System.out.println("worker logs: " + work.resolve("logs"));
    return 0;
  }

  private int workersOr(int fallback) {
    return workers != null ? workers : fallback;
  }

  /** Durations as the config writes them (20s, 10m, 500ms); a bad one is named in the error. */
  static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      try {
        return Durations.parse(value);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }

  /** Medians of repeated runs, key by key. */
  static final class Medians {
    interface Run {
      Map<String, Object> once() throws Exception;
    }

    static Map<String, Object> of(int runs, Run run) throws Exception {
      List<Map<String, Object>> all = new ArrayList<>();
      for (int i = 0, overruns = 0; i < runs; i++) {
        try {
          all.add(run.once());
        } catch (Measures.SeedingOverran e) {
          if (++overruns > 3) {
            throw e;
          }
          System.out.println("  " + e.getMessage() + "; running it again with a longer delay");
          i--;
        }
      }
      Map<String, Object> out = new LinkedHashMap<>();
      for (String key : all.get(0).keySet()) {
        List<Double> values = new ArrayList<>();
        for (Map<String, Object> r : all) {
          if (r.get(key) instanceof Number num) {
            values.add(num.doubleValue());
          }
        }
        if (values.size() == all.size()) {
          values.sort(Double::compare);
          double median = values.get(values.size() / 2);
          out.put(key, median == Math.rint(median) ? (Object) Math.round(median) : (Object) median);
        } else {
          out.put(key, all.get(0).get(key));
        }
      }
      if (runs > 1) {
        out.put("runs", runs);
      }
      return out;
    }
  }

  /** --rate means a limit to ratelimit and a load to soak and to precision's sustained run, each with its own default. */
  private int rateOr(int measureDefault) {
    return rate == null ? measureDefault : rate;
  }
}

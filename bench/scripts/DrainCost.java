// What the claim and acknowledgement scripts of a drain cost Redis per job, apart from everything
// else a `bench drain` runs (the scheduler's forwarding, heartbeats, the stats, the JVMs' own
// noise): N jobs with the bench's 100-byte payload are seeded into ready, then C consumers are
// played in turn through the tree's own RedisBroker, as Consumer and AckSender call it: a
// claimReady of up to PREFETCH jobs (the batch's first marked running, the consumer's last
// acknowledgement folded in), then, per round, every consumer finishes up to PER jobs and one
// ackAll carries them all (each consumer's finished deliveries and the one it started since).
// Prints Redis's own CPU (used_cpu_user + sys) and each command's time (INFO commandstats, the
// scripts' inner commands counted again) per job over the drain only. One thread and no handler:
// the figure is Redis's side, steady on a loaded machine; run it against each tree to compare.
// Run: java -cp '<tree>/bench/target/lib/*' bench/scripts/DrainCost.java PORT N PREFETCH C PER
// (Side, the drain itself, is what DrainCostMix.java runs for two trees at once on one Redis.)
import dev.delayq.redis.Batch;
import dev.delayq.redis.Claimed;
import dev.delayq.redis.Delivery;
import dev.delayq.redis.Keys;
import dev.delayq.redis.NewJob;
import dev.delayq.redis.RedisBroker;
import dev.delayq.redis.Report;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.LongUnaryOperator;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;

public final class DrainCost {
  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    int n = Integer.parseInt(args[1]);
    int prefetch = Integer.parseInt(args[2]);
    int consumers = Integer.parseInt(args[3]);
    int per = Integer.parseInt(args[4]);
    try (RedisClient redis = RedisClient.create("127.0.0.1", port)) {
      Side side = new Side(port, "cost-" + UUID.randomUUID().toString().substring(0, 8), n, prefetch, consumers, per);
      redis.sendCommand(Protocol.Command.CONFIG, "RESETSTAT");
      double cpu0 = cpu(redis);
      long t0 = System.nanoTime();
      side.applyAsLong(n);
      double seconds = (System.nanoTime() - t0) / 1e9;
      double cpuUs = (cpu(redis) - cpu0) * 1e6;
      System.out.printf("jobs %d prefetch %d consumers %d per %d: redis_cpu_us_per_job %.3f, "
              + "jobs_per_s %.0f, claims/job %.4f, acks/job %.4f%n",
          n, prefetch, consumers, per, cpuUs / n, n / seconds, side.claimCalls / (double) n,
          side.ackCalls / (double) n);
      System.out.printf("%-16s%11s%10s%9s%n", "command", "calls/job", "us/call", "us/job");
      List<String[]> rows = new ArrayList<>();
      for (String line : redis.info("commandstats").split("\r?\n")) {
        if (line.startsWith("cmdstat_")) {
          String name = line.substring(8, line.indexOf(':'));
          long calls = 0;
          long usec = 0;
          for (String f : line.substring(line.indexOf(':') + 1).split(",")) {
            if (f.startsWith("calls=")) {
              calls = Long.parseLong(f.substring(6));
            } else if (f.startsWith("usec=")) {
              usec = Long.parseLong(f.substring(5));
            }
          }
          rows.add(new String[] {name, Long.toString(calls), Long.toString(usec)});
        }
      }
      rows.sort((a, b) -> Long.compare(Long.parseLong(b[2]), Long.parseLong(a[2])));
      for (String[] r : rows) {
        long calls = Long.parseLong(r[1]);
        long usec = Long.parseLong(r[2]);
        System.out.printf("%-16s%11.4f%10.2f%9.3f%n", r[0], calls / (double) n, usec / (double) calls,
            usec / (double) n);
      }
    }
  }

  /**
   * One queue's drain, played a part at a time: seeded with N jobs into ready at construction,
   * then {@code applyAsLong(k)} goes on until about k more are acknowledged (all of them when
   * fewer wait) and answers how many are so far. DrainCostMix loads it once per tree, each in a
   * class loader of its own, to run two trees' scripts side by side on one Redis.
   */
  public static final class Side implements LongUnaryOperator {
    private final RedisClient redis;
    private final Keys keys;
    private final RedisBroker broker;
    private final int prefetch;
    private final int consumers;
    private final int per;
    private final String[] ids;
    private final List<List<Claimed>> batches = new ArrayList<>();
    private final int[] next;
    private final Delivery[] pendingAck;
    private long done;
    long ackCalls;
    long claimCalls;

    public Side(int port, String queue, int n, int prefetch, int consumers, int per) {
      this.prefetch = prefetch;
      this.consumers = consumers;
      this.per = per;
      redis = RedisClient.create("127.0.0.1", port);
      keys = new Keys("delayq", queue);
      broker = new RedisBroker(redis, keys);
      String payload = "{\"order_id\":1001,\"user_id\":4242,\"amount\":\"19.99\",\"currency\":\"EUR\",\"note\":\""
          + "x".repeat(100 - 2 - 79) + "\"}";
      List<NewJob> jobs = new ArrayList<>();
      String head = dev.delayq.redis.JobRecord.newHead("noop", 5, false, java.util.Map.of(), null);
      for (int i = 0; i < n; i++) {
        jobs.add(new NewJob(UUID.randomUUID().toString().replace("-", "").substring(0, 12), head,
            payload, 0, false));
        if (jobs.size() == 1000) {
          broker.enqueueAll(jobs);
          jobs.clear();
        }
      }
      broker.enqueueAll(jobs);
      while (broker.moveDueToReady(1000).moved() > 0) {
        // every seeded job due now: all of them into ready before the drain is measured
      }
      if (redis.llen(keys.ready()) != n) {
        throw new IllegalStateException("seeded " + redis.llen(keys.ready()) + " of " + n);
      }
      ids = new String[consumers];
      next = new int[consumers];
      pendingAck = new Delivery[consumers];
      for (int c = 0; c < consumers; c++) {
        ids[c] = "w-1@host:1:" + c;
        batches.add(List.of());
      }
    }

    @Override
    public long applyAsLong(long more) {
      long target = done + more;
      while (done < target) {
        List<Report> reports = new ArrayList<>();
        for (int c = 0; c < consumers; c++) {
          if (next[c] >= batches.get(c).size()) {
            Batch b = broker.claimReady(ids[c], 30_000, prefetch, pendingAck[c]);
            claimCalls++;
            if (pendingAck[c] != null) {
              done++;
            }
            pendingAck[c] = null;
            batches.set(c, b.jobs());
            next[c] = 0;
            if (b.jobs().isEmpty()) {
              continue;
            }
            next[c] = 1; // the first is marked running by the claim: it runs at once
            pendingAck[c] = b.jobs().get(0).delivery();
          }
          List<Delivery> finished = new ArrayList<>();
          Delivery started = null;
          for (int k = 0; k < per && next[c] < batches.get(c).size(); k++) {
            started = batches.get(c).get(next[c]++).delivery();
            finished.add(pendingAck[c]);
            pendingAck[c] = started;
          }
          if (!finished.isEmpty()) {
            reports.add(new Report(ids[c], started, finished));
          }
        }
        if (!reports.isEmpty()) {
          broker.ackAll(reports);
          ackCalls++;
          done += reports.stream().mapToInt(r -> r.finished().size()).sum();
        }
        if (reports.isEmpty() && redis.llen(keys.ready()) == 0) {
          // the last job of every batch: acknowledged by a claim that finds nothing
          for (int c = 0; c < consumers; c++) {
            if (pendingAck[c] != null) {
              broker.claimReady(ids[c], 30_000, prefetch, pendingAck[c]);
              claimCalls++;
              pendingAck[c] = null;
              done++;
            }
          }
          if (redis.hlen(keys.jobs()) != 0 || redis.llen(keys.ready()) != 0) {
            throw new IllegalStateException("not drained: " + redis.hlen(keys.jobs()) + " records left");
          }
          break;
        }
      }
      return done;
    }
  }

  static double cpu(RedisClient redis) {
    double s = 0;
    for (String line : redis.info("cpu").split("\r?\n")) {
      if (line.startsWith("used_cpu_user:") || line.startsWith("used_cpu_sys:")) {
        s += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
      }
    }
    return s;
  }
}

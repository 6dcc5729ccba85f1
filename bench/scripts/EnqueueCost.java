// What one enqueue.lua call costs Redis, for several versions of the script side by side: each
// fills its own queue as the bench's does (delays 60-120 s at random, the bench's 100-byte
// payload, random 22-character ids), N jobs in calls of PER, the versions' calls interleaved so
// that each meets the same load. Per version: the median and quickest round trip per job of the
// calls in the second half of the fill (the wheel is as deep as the bench's by then); on a
// shared machine the interleaving makes the medians comparable, the ratio is the figure.
// Scripts: files with the expanded source (ScriptSource.java). Env ROUND (0): when set, the
// delays of each ROUND jobs are sorted before they are cut into calls, as enqueueAll sends a
// round trip (Enqueuer: due order).
// Run: java -cp <tree>/bench/target/lib/'*' bench/scripts/EnqueueCost.java PORT N PER A.lua B.lua ...
import dev.delayq.redis.Keys;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import redis.clients.jedis.Jedis;

public final class EnqueueCost {
  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    int n = Integer.parseInt(args[1]);
    int per = Integer.parseInt(args[2]);
    int versions = args.length - 3;
    String payload = "{\"order_id\":1001,\"user_id\":4242,\"amount\":\"19.99\",\"currency\":\"EUR\",\"note\":\""
        + "x".repeat(100 - 2 - 79) + "\"}";
    try (Jedis redis = new Jedis("127.0.0.1", port)) {
      String[] shas = new String[versions];
      List<List<String>> keyLists = new ArrayList<>();
      List<Keys> keys = new ArrayList<>();
      for (int v = 0; v < versions; v++) {
        shas[v] = redis.scriptLoad(Files.readString(Path.of(args[3 + v])));
        Keys k = new Keys("delayq", "cost-" + UUID.randomUUID().toString().substring(0, 8));
        keys.add(k);
        keyLists.add(List.of(k.jobs(), k.delayed(), k.ready(), k.wake(), k.stats(), k.ended(),
            k.endedExpiry(), k.dead()));
      }
      int calls = n / per;
      long[][] nanos = new long[versions][calls];
      double[] evalUs = new double[versions];
      int round = Integer.parseInt(System.getenv().getOrDefault("ROUND", "0"));
      long[][] delays = new long[versions][];
      for (int c = 0; c < calls; c++) {
        for (int v = 0; v < versions; v++) {
          if (c == calls / 2) {
            evalUs[v] -= cpu(redis) * 1e6;
          }
          List<String> argv = new ArrayList<>(per * 5 + 1);
          argv.add("1048576");
          if (round > 0 && (c * per) % round == 0) {
            delays[v] = new long[round];
            for (int i = 0; i < round; i++) {
              delays[v][i] = ThreadLocalRandom.current().nextLong(60_000) + 60_000;
            }
            Arrays.sort(delays[v]);
          }
          for (int i = 0; i < per; i++) {
            argv.add(UUID.randomUUID().toString().replace("-", "").substring(0, 22));
            argv.add("{\"t\":\"noop\",\"m\":5");
            argv.add(payload);
            argv.add(Long.toString(round > 0 ? delays[v][(c * per + i) % round]
                : ThreadLocalRandom.current().nextLong(60_000) + 60_000));
            argv.add("delay");
          }
          if (c > calls / 2) {
            evalUs[v] -= cpu(redis) * 1e6;
          }
          long t0 = System.nanoTime();
          redis.evalsha(shas[v], keyLists.get(v), argv);
          nanos[v][c] = System.nanoTime() - t0;
          if (c >= calls / 2) {
            evalUs[v] += cpu(redis) * 1e6;
          }
        }
      }
      double base = 0;
      for (int v = 0; v < versions; v++) {
        long[] late = Arrays.copyOfRange(nanos[v], calls / 2, calls);
        Arrays.sort(late);
        double median = late[late.length / 2] / 1e3 / per;
        if (v == 0) {
          base = median;
        }
        System.out.printf("%-28s n %d per %d, second half: redis cpu %.2f us/job (%.2fx); round trip per job: median %.2f us, quickest %.2f us; delayed %s, buckets %d%n",
            args[3 + v], n, per, evalUs[v] / (calls - calls / 2) / per, evalUs[v] / evalUs[0], median, late[0] / 1e3 / per,
            redis.get(keys.get(v).delayed() + ":count"), redis.zcard(keys.get(v).delayed() + ":index"));
        if (System.getenv("KEEP") != null) {
          continue;
        }
        for (String k : redis.keys(keys.get(v).delayed() + "*")) {
          redis.del(k);
        }
        redis.del(keys.get(v).jobs(), keys.get(v).stats(), keys.get(v).wake(), keys.get(v).ready());
      }
    }
  }

  /** Redis's CPU time so far (used_cpu_user + used_cpu_sys), seconds. */
  private static double cpu(Jedis redis) {
    double s = 0;
    for (String line : redis.info("cpu").split("\r\n")) {
      if (line.startsWith("used_cpu_user:") || line.startsWith("used_cpu_sys:")) {
        s += Double.parseDouble(line.substring(line.indexOf(':') + 1));
      }
    }
    return s;
  }
}

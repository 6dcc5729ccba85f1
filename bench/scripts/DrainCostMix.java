// The claim and acknowledgement scripts of two trees side by side on one Redis: each tree's
// DrainCost.Side (its own RedisBroker and scripts, loaded in a class loader of its own) drains its
// own queue of N jobs, the two taking turns a CHUNK of jobs at a time (who goes first alternates),
// and Redis's CPU (used_cpu_user + sys) is read around each chunk. Both trees' scripts so meet the
// same load, the same host and the same Redis: on a shared machine, where the CPU per job of one
// whole run swings by half from one minute to the next, their ratio stays steady.
// Prints each tree's Redis CPU µs per job over its whole drain, their ratio, and the median of the
// ratios of the chunk pairs.
// Run (drain-cost-mix.sh does it): compile DrainCost.java and this file against a tree's
// bench/target/lib into CLASSES, then java -cp 'CLASSES:<tree>/bench/target/lib/*' DrainCostMix
// CLASSES PORT BEFORE_TREE AFTER_TREE N CHUNK PREFETCH C PER
import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongUnaryOperator;
import redis.clients.jedis.RedisClient;

public final class DrainCostMix {
  public static void main(String[] args) throws Exception {
    File classes = new File(args[0]);
    int port = Integer.parseInt(args[1]);
    int n = Integer.parseInt(args[4]);
    int chunk = Integer.parseInt(args[5]);
    int prefetch = Integer.parseInt(args[6]);
    int consumers = Integer.parseInt(args[7]);
    int per = Integer.parseInt(args[8]);
    LongUnaryOperator[] sides = {
        side(classes, new File(args[2]), "before", port, n, prefetch, consumers, per),
        side(classes, new File(args[3]), "after", port, n, prefetch, consumers, per)};
    try (RedisClient redis = RedisClient.create("127.0.0.1", port)) {
      double[] cpu = new double[2];
      long[] done = new long[2];
      List<Double> ratios = new ArrayList<>();
      for (int turn = 0; done[0] < n || done[1] < n; turn++) {
        double[] perJob = new double[2];
        for (int k = 0; k < 2; k++) {
          int s = turn % 2 == 0 ? k : 1 - k;
          long was = done[s];
          double c0 = DrainCost.cpu(redis);
          done[s] = sides[s].applyAsLong(chunk);
          double used = DrainCost.cpu(redis) - c0;
          cpu[s] += used;
          perJob[s] = done[s] > was ? used / (done[s] - was) : 0;
        }
        if (perJob[0] > 0 && perJob[1] > 0) {
          ratios.add(perJob[1] / perJob[0]);
        }
      }
      ratios.sort(null);
      double before = cpu[0] * 1e6 / done[0];
      double after = cpu[1] * 1e6 / done[1];
      System.out.printf("jobs %d chunk %d prefetch %d consumers %d per %d: before %.3f, after %.3f us of Redis CPU "
              + "per job, after/before %.3f (median over %d chunk pairs %.3f)%n",
          n, chunk, prefetch, consumers, per, before, after, after / before, ratios.size(),
          ratios.get(ratios.size() / 2));
    }
  }

  private static LongUnaryOperator side(File classes, File tree, String queue, int port, int n, int prefetch,
      int consumers, int per) throws Exception {
    List<URL> urls = new ArrayList<>(List.of(classes.toURI().toURL()));
    for (File jar : new File(tree, "bench/target/lib").listFiles()) {
      urls.add(jar.toURI().toURL());
    }
    ClassLoader loader = new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());
    return (LongUnaryOperator) loader.loadClass("DrainCost$Side")
        .getConstructor(int.class, String.class, int.class, int.class, int.class, int.class)
        .newInstance(port, queue, n, prefetch, consumers, per);
  }
}

// One half of `bench enqueue` alone, against a Redis whose INFO commandstats the caller reads
// before and after (enqueue-halves.sh): "batched" (enqueueAll of N jobs) or "single" (N jobs
// through delay(), IN_FLIGHT threads), the bench's jobs (100-byte payload, due 60-120 s ahead at
// random). Prints jobs/s and the script calls it made.
// Run: java -cp <tree>/bench/target/lib/'*' bench/scripts/EnqueueHalves.java PORT batched|single N [IN_FLIGHT]
import dev.delayq.DelayQueue;
import dev.delayq.JobRequest;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;

import redis.clients.jedis.UnifiedJedis;

public final class EnqueueHalves {
  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    String mode = args[1];
    int n = Integer.parseInt(args[2]);
    int inFlight = args.length > 3 ? Integer.parseInt(args[3]) : 50;
    String payload = "{\"order_id\":1001,\"user_id\":4242,\"amount\":\"19.99\",\"currency\":\"EUR\",\"note\":\""
        + "x".repeat(100 - 2 - 79) + "\"}";
    UnifiedJedis redis = dev.delayq.redis.RedisConnector.open("redis://127.0.0.1:" + port, "halves", 64,
        Duration.ofSeconds(2), Duration.ofSeconds(10));
    Keys keys = new Keys("delayq", "halves-" + UUID.randomUUID().toString().substring(0, 8));
    RedisBroker broker = new RedisBroker(redis, keys);
    broker.prepare();
    DelayQueue q = new DelayQueue(broker, 1 << 20, 5);
    long t0 = System.nanoTime();
    if (mode.equals("batched")) {
      List<JobRequest> jobs = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        jobs.add(JobRequest.delay("noop", payload, Duration.ofMillis(ThreadLocalRandom.current().nextLong(60_000) + 60_000)));
      }
      t0 = System.nanoTime();
      q.enqueueAll(jobs);
    } else {
      ExecutorService pool = Executors.newFixedThreadPool(inFlight);
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < inFlight; t++) {
        futures.add(pool.submit(() -> {
          for (int i = 0; i < n / inFlight; i++) {
            q.delay("noop", payload, Duration.ofMillis(ThreadLocalRandom.current().nextLong(60_000) + 60_000));
          }
          return null;
        }));
      }
      for (Future<?> f : futures) {
        f.get();
      }
      pool.shutdown();
    }
    double s = (System.nanoTime() - t0) / 1e9;
    System.out.printf("%s: %d jobs/s%n", mode, Math.round(n / s));
    q.close();
    redis.close();
  }
}

package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.delayq.redisserver.RedisServer;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;

/**
 * {@code delayq check} over a large workflow, on a Redis of its own: 40,000 jobs pending in one
 * closed batch and 40,000 jobs each waiting for one of them. Its workflow reads (the waiting hash,
 * each wait set, the batch's pending set) go in bounded steps, so no command it sends costs more
 * than a fiftieth of one whole read of the jobs hash timed just before, and never less than
 * 10 ms; as in MillionJobsCheckAndRecoverTest, a command over the bound is a breach only when it is
 * over it in each of three looks (a loaded host stalls a command at random).
 */
class WorkflowCheckBoundsTest {
  private static final int MEMBERS = 40_000;
  private static final int PER_CALL = 1_000;

  @Test
  void checkOfALargeWorkflowSendsOnlyBoundedCommands() {
    try (RedisServer server = RedisServer.start(); RedisClient redis = server.client();
        Jedis admin = new Jedis("127.0.0.1", server.port(), 60_000)) {
      Keys keys = new Keys("delayq", RedisFixture.freshQueue());
      RedisBroker broker = new RedisBroker(redis, keys);
      broker.loadScripts();
      load(broker.workflows());
      admin.configSet("slowlog-log-slower-than", "0");
      admin.slowlogReset();
      admin.eval("return #redis.call('HKEYS', KEYS[1])", 1, keys.jobs());
      long wholeReadUs = admin.slowlogGet(10).stream().filter(e -> e.getArgs().get(0).equalsIgnoreCase("eval"))
          .mapToLong(e -> e.getExecutionTime()).max().orElseThrow();
      long boundUs = Math.max(10_000, wholeReadUs / 50);
      admin.configSet("slowlog-log-slower-than", Long.toString(boundUs));
      admin.configSet("slowlog-max-len", "100000");

      Set<String> slowInEveryLook = null;
      for (int look = 1; look <= 3; look++) {
        admin.slowlogReset();
        long t0 = System.nanoTime();
        List<InvariantCheck.Breach> breaches = new InvariantCheck(redis, keys).breaches();
        long checkMs = (System.nanoTime() - t0) / 1_000_000;
        Set<String> slow = admin.slowlogGet(100_000).stream()
            .map(e -> e.getExecutionTime() + "us " + String.join(" ", e.getArgs()).replaceAll("(.{120}).*", "$1…"))
            .collect(Collectors.toSet());
        System.out.println("look " + look + ": check of " + 2 * MEMBERS + " workflow jobs (" + MEMBERS
            + " pending in a batch, " + MEMBERS + " waiting) " + checkMs + " ms; one whole read of the jobs hash "
            + wholeReadUs + " us; commands over " + boundUs + " us: " + slow);
        assertEquals(List.of(), breaches);
        Set<String> commands = slow.stream().map(s -> s.substring(s.indexOf(' ') + 1)).collect(Collectors.toSet());
        if (commands.isEmpty()) {
          return;
        }
        if (slowInEveryLook == null) {
          slowInEveryLook = commands;
        } else {
          slowInEveryLook.retainAll(commands);
        }
      }
      assertEquals(Set.of(), slowInEveryLook, "commands over " + boundUs + " us in each of three looks");
    }
  }

  /** The batch's members and the jobs waiting for them, a thousand per enqueueFlow call. */
  private static void load(Workflows flows) {
    flows.openBatch("big");
    String memberHead = JobRecord.newHead(QueueProbe.TYPE, 3, false, Map.of(), ",\"b\":\"big\",\"wf\":1");
    String waiterHead = JobRecord.newHead(QueueProbe.TYPE, 3, false, Map.of(), ",\"wf\":1");
    for (int from = 0; from < MEMBERS; from += PER_CALL) {
      List<Workflows.FlowJob> members = new ArrayList<>(PER_CALL);
      List<Workflows.FlowJob> waiters = new ArrayList<>(PER_CALL);
      for (int i = from; i < from + PER_CALL; i++) {
        // due now, in ready (no worker claims them here): the check's read of the time wheel is
        // not what this measures
        members.add(new Workflows.FlowJob(new NewJob("m-" + i, memberHead, "{\"n\":" + i + "}", 0, false),
            List.of(), "fail"));
        waiters.add(new Workflows.FlowJob(new NewJob("w-" + i, waiterHead, "{\"n\":" + i + "}", 0, false),
            List.of("m-" + i), "fail"));
      }
      flows.enqueue("big", members);
      flows.enqueue(null, waiters);
    }
    flows.closeBatch("big", new Workflows.Callback("big-done", waiterHead, "{}", 0), null);
  }
}

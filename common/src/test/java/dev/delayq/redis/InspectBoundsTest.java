package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.redisserver.RedisServer;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.resps.Slowlog;

/**
 * {@code delayq inspect} (and the dashboard's job page) over a ready list of 300,000 ids and a held
 * list of 100,000, on a Redis of its own whose SLOWLOG keeps every command: each list is read a
 * bounded stretch a command (LPOS with MAXLEN from the ends, then findInList.lua a stretch a call),
 * never one LPOS over the whole list, and what inspect says of a job is right wherever it sits.
 */
class InspectBoundsTest {
  private static final int READY = 300_000;
  private static final int HELD = 100_000;

  @Test
  void inspectOfJobsDeepInLongListsReadsBoundedStretchesAndFindsEachOne() {
    try (RedisServer server = RedisServer.start(); RedisClient redis = server.client();
        Jedis admin = new Jedis("127.0.0.1", server.port(), 60_000)) {
      Keys keys = new Keys("delayq", RedisFixture.freshQueue());
      RedisBroker broker = new RedisBroker(redis, keys);
      broker.loadScripts();
      load(redis, keys);
      Admin inspect = broker.admin(3);
      admin.configSet("slowlog-log-slower-than", "0");
      admin.configSet("slowlog-max-len", "100000");
      admin.slowlogReset();

      // LPUSHed in order: r-i stands at index READY - 1 - i, the consumers' end on the right
      for (int i : new int[] {READY - 1, READY - 1_000, READY / 2, 2, 0}) {
        String id = "r-" + i;
        assertEquals(Admin.State.READY, inspect.inspect(id).orElseThrow().state(), id);
        assertEquals(READY - 1L - i, broker.jobPlaces(id, List.of()).readyPosition(), id);
      }
      assertEquals(Admin.State.HELD, inspect.inspect("h-" + HELD / 2).orElseThrow().state());
      assertEquals(Admin.State.ORPHAN, inspect.inspect("orphan").orElseThrow().state());
      assertEquals(null, broker.jobPlaces("orphan", List.of()).readyPosition());

      List<Slowlog> log = admin.slowlogGet(100_000);
      assertTrue(log.size() < 100_000, "the log kept every command: " + log.size());
      int searches = 0;
      long slowestUs = 0;
      for (Slowlog e : log) {
        List<String> args = e.getArgs();
        String command = args.get(0).toUpperCase();
        assertTrue(!command.equals("LPOS") || args.contains("MAXLEN") || args.contains("maxlen"),
            "an LPOS over a whole list: " + args);
        assertTrue(!command.equals("LRANGE") || Long.parseLong(args.get(3)) >= 0,
            "an LRANGE to a list's end: " + args);
        if (command.equals("EVALSHA") && args.get(1).equals(Script.FIND_IN_LIST.sha())) {
          searches++;
          assertEquals(Integer.toString(ListSearch.STRETCH), args.get(args.size() - 1), "a stretch a call");
          slowestUs = Math.max(slowestUs, e.getExecutionTime());
        }
      }
      // the middle of ready (two reads of it), all of ready for the orphan and the held job (not
      // in ready), and held up to the held job: each a stretch a call
      assertTrue(searches > 2 * READY / ListSearch.STRETCH, "searched in stretches: " + searches);
      System.out.println("inspect of 9 jobs in a ready list of " + READY + " and a held list of " + HELD + ": "
          + searches + " findInList calls of " + ListSearch.STRETCH + " ids, the slowest " + slowestUs + " us");
    }
  }

  /** READY ids in ready and HELD in the held list of the test type, each with a record, and an orphan. */
  private static void load(RedisClient redis, Keys keys) {
    String record = QueueProbe.head(QueueProbe.TYPE, 5) + ",\"c\":1,\"d\":1,\"p\":{}}";
    try (AbstractPipeline p = redis.pipelined()) {
      for (int from = 0; from < READY; from += 1_000) {
        List<String> ids = new ArrayList<>(1_000);
        Map<String, String> records = new java.util.HashMap<>();
        for (int i = from; i < from + 1_000; i++) {
          ids.add("r-" + i);
          records.put("r-" + i, record);
          if (i < HELD) {
            records.put("h-" + i, record);
          }
        }
        p.lpush(keys.ready(), ids.toArray(String[]::new));
        if (from < HELD) {
          p.lpush(keys.held(QueueProbe.TYPE), ids.stream().map(id -> "h-" + id.substring(2)).toArray(String[]::new));
        }
        p.hset(keys.jobs(), records);
      }
      p.hset(keys.jobs(), "orphan", record);
      p.sync();
    }
    assertEquals(READY, redis.llen(keys.ready()));
  }
}

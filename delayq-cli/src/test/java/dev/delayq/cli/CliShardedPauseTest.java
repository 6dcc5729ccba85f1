package dev.delayq.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.redis.Keys;
import dev.delayq.testing.RedisFixture;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.UnifiedJedis;

/**
 * {@code delayq pause}, {@code resume}, {@code stats} and {@code queues} on a queue of three shards:
 * a pause that one shard does not take fails naming it (exit 3), shows as "paused on 2 of 3
 * shards", and the same command run again finishes it.
 */
class CliShardedPauseTest {
  private final Cli cli = new Cli();
  private final Keys keys = Keys.sharded("delayq", cli.queue, 3);
  private final UnifiedJedis redis = RedisFixture.get().redis();

  CliShardedPauseTest() {
    cli.env.put("DELAYQ_QUEUE_SHARDS", "3");
    RedisFixture.get().broker(keys).prepare();
  }

  @Test
  void aPauseOneShardDidNotTakeIsNamedShownAsPartialAndFinishedByRunningItAgain() {
    // shard 2's pause hash cannot be written (WRONGTYPE): the others are paused, shard 2 is not
    redis.set(keys.shard(2).paused(), "not a hash");
    Cli.Result half = cli.run("pause", cli.queue + ":pay");
    assertEquals(ExitCodes.REDIS, half.exit(), half.toString());
    assertTrue(half.err().contains("pause of type pay in queue " + cli.queue + ": not done on shard 2 (WRONGTYPE"),
        half.toString());
    assertTrue(half.err().contains("done on 0, 1. Run it again"), half.toString());
    redis.del(keys.shard(2).paused());

    Cli.Result stats = cli.run("stats");
    assertTrue(stats.out().contains("flow: pay paused on 2 of 3 shards since "), stats.out());
    assertTrue(cli.run("stats", "--json").out().contains("\"partlyPaused\":{\"pay\":{\"shards\":2,\"of\":3,"),
        "stats --json");
    Cli.Result queues = cli.run("queues");
    assertTrue(queues.out().lines().anyMatch(l -> l.startsWith(cli.queue + " ") && l.endsWith("pay(2/3 shards)")),
        queues.out());

    Cli.Result again = cli.run("pause", cli.queue + ":pay");
    assertEquals(0, again.exit(), again.toString());
    assertEquals("paused type pay in queue " + cli.queue, again.out().strip());
    Cli.Result whole = cli.run("stats");
    assertTrue(whole.out().contains("flow: pay paused since "), whole.out());
    assertFalse(whole.out().contains("shards"), whole.out());

    Cli.Result resumed = cli.run("resume", cli.queue + ":pay");
    assertEquals(0, resumed.exit(), resumed.toString());
    assertEquals("resumed type pay in queue " + cli.queue + "; 0 held job(s) back to ready", resumed.out().strip());
    for (Keys shard : keys.allShards()) {
      assertFalse(redis.hexists(shard.paused(), "pay"), "shard " + shard.shard() + " resumed");
    }
  }

  @Test
  void aWholeShardedQueuePausesOnEveryShardAndResumes() {
    Cli.Result paused = cli.run("pause", cli.queue);
    assertEquals(0, paused.exit(), paused.toString());
    assertEquals("paused queue " + cli.queue, paused.out().strip());
    for (Keys shard : keys.allShards()) {
      assertTrue(redis.hexists(shard.paused(), "*"), "shard " + shard.shard() + " paused");
    }
    assertTrue(cli.run("queues").out().lines().anyMatch(l -> l.startsWith(cli.queue + " ") && l.endsWith("queue")));
    assertEquals("already paused: queue " + cli.queue, cli.run("pause", cli.queue).out().strip());
    assertEquals(0, cli.run("resume", cli.queue).exit());
    for (Keys shard : keys.allShards()) {
      assertFalse(redis.exists(shard.paused()), "shard " + shard.shard() + " resumed");
    }
  }
}

package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link JobBrowser} on a queue of three shards (in one Redis): pages merged over the shards. */
class ShardedJobBrowserTest {
  private final Keys keys = Keys.sharded("delayq", RedisFixture.freshQueue(), 3);
  private final RedisBroker broker = RedisFixture.get().broker(keys);
  private final JobBrowser browser = new JobBrowser(RedisFixture.get().redis(), keys);

  private static List<String> ids(JobBrowser.Page page) {
    return page.rows().stream().map(JobBrowser.Row::id).toList();
  }

  @Test
  void delayedJobsOfAllShardsPageInDueOrderWithTheirRecords() {
    long now = broker.redisNowMs();
    List<String> inDueOrder = new ArrayList<>();
    for (int i = 0; i < 25; i++) {
      String id = "job-" + (24 - i); // ids in another order than their due times
      broker.enqueue(new NewJob(id, QueueProbe.head("order_close", 5), "{}", now + 60_000 + i * 10L, true));
      inDueOrder.add(id);
    }
    assertEquals(3, new HashSet<>(inDueOrder.stream().map(keys::shardIndexOf).toList()).size(), "spread over the shards");

    List<String> seen = new ArrayList<>();
    long offset = 0;
    while (offset >= 0) {
      JobBrowser.Page p = browser.delayed(now, Long.MAX_VALUE, new JobBrowser.Query(null, null, 10, offset));
      seen.addAll(ids(p));
      p.rows().forEach(r -> assertEquals("order_close", r.type(), "record of " + r.id() + " read in its shard"));
      offset = p.nextOffset();
    }

    assertEquals(inDueOrder, seen);
    assertEquals(List.of("job-23", "job-22"), ids(browser.delayed(now + 60_010, now + 60_020,
        new JobBrowser.Query(null, null, 10, 0))), "the window applies to every shard");
    assertThrows(IllegalArgumentException.class, () -> browser.delayed(now, Long.MAX_VALUE,
        new JobBrowser.Query(null, null, 10, JobBrowser.MOST_SHARDED_OFFSET + 1)));
  }

  @Test
  void readyJobsOfAllShardsPageOnceEachShardByShard() {
    long now = broker.redisNowMs();
    List<String> all = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      broker.enqueue(new NewJob("r-" + i, QueueProbe.head("stock_release", 5), "{}", now - 1_000, true));
      all.add("r-" + i);
    }

    List<String> seen = new ArrayList<>();
    long offset = 0;
    while (offset >= 0) {
      JobBrowser.Page p = browser.ready(new JobBrowser.Query(null, null, 6, offset));
      seen.addAll(ids(p));
      offset = p.nextOffset();
    }

    assertEquals(all.size(), seen.size(), "no repeats: " + seen);
    assertEquals(new HashSet<>(all), new HashSet<>(seen));
    assertTrue(browser.ready(new JobBrowser.Query("stock_release", "r-1", 50, 0)).rows().stream()
        .allMatch(r -> r.id().startsWith("r-1") && r.type().equals("stock_release")));
  }
}

package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link JobBrowser}: bounded pages of delayed and ready jobs, by due window, type and id prefix. */
class JobBrowserTest {
  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final QueueProbe probe = new QueueProbe(broker);
  private final JobBrowser browser = new JobBrowser(broker.redis(), broker.keys());

  private void enqueue(String id, String type, long dueAt) {
    broker.enqueue(new RedisBroker.NewJob(id, QueueProbe.head(type, 5), "{\"id\":\"" + id + "\"}", dueAt, true));
  }

  private static List<String> ids(JobBrowser.Page page) {
    return page.rows().stream().map(JobBrowser.Row::id).toList();
  }

  @Test
  void delayedJobsListInDueOrderWithinTheWindowOnly() {
    long now = probe.redisNowMs();
    enqueue("later", "report", now + 7_200_000);
    enqueue("b", "order_close", now + 20_000);
    enqueue("a", "order_close", now + 10_000);

    JobBrowser.Page page = browser.delayed(now, now + 3_600_000, new JobBrowser.Query(null, null, 50, 0));

    assertEquals(List.of("a", "b"), ids(page));
    assertEquals(-1, page.nextOffset());
    JobBrowser.Row a = page.rows().get(0);
    assertEquals(now + 10_000, a.dueAt());
    assertEquals("order_close", a.type());
    assertEquals(1, a.attempt());
    assertEquals("{\"id\":\"a\"}", a.payloadJson());
  }

  @Test
  void typeAndIdPrefixFilterThePage() {
    long now = probe.redisNowMs();
    enqueue("order-1", "order_close", now + 1_000);
    enqueue("stock-1", "stock_release", now + 2_000);
    enqueue("order-2", "order_close", now + 3_000);
    enqueue("order-3", "stock_release", now + 4_000);

    JobBrowser.Query byType = new JobBrowser.Query("order_close", null, 50, 0);
    JobBrowser.Query byPrefix = new JobBrowser.Query(null, "order-", 50, 0);
    JobBrowser.Query both = new JobBrowser.Query("stock_release", "order-", 50, 0);

    assertEquals(List.of("order-1", "order-2"), ids(browser.delayed(now, Long.MAX_VALUE, byType)));
    assertEquals(List.of("order-1", "order-2", "order-3"), ids(browser.delayed(now, Long.MAX_VALUE, byPrefix)));
    assertEquals(List.of("order-3"), ids(browser.delayed(now, Long.MAX_VALUE, both)));
  }

  @Test
  void pagesFollowOneAnotherByOffsetWithoutGapsOrRepeats() {
    long now = probe.redisNowMs();
    List<RedisBroker.NewJob> jobs = new ArrayList<>();
    for (int i = 0; i < 25; i++) {
      jobs.add(QueueProbe.at(String.format("j%02d", i), "{}", now + 60_000 + i));
    }
    broker.enqueueAll(jobs);

    List<String> seen = new ArrayList<>();
    long offset = 0;
    int pages = 0;
    while (offset >= 0) {
      JobBrowser.Page p = browser.delayed(now, Long.MAX_VALUE, new JobBrowser.Query(null, null, 10, offset));
      seen.addAll(ids(p));
      offset = p.nextOffset();
      pages++;
    }

    assertEquals(jobs.stream().map(RedisBroker.NewJob::id).toList(), seen);
    assertEquals(3, pages);
  }

  @Test
  void readyJobsListTheOneWorkersTakeNextFirst() {
    probe.seedReady("first");
    probe.seedReady("second");
    probe.seedReady("third");

    JobBrowser.Page page = browser.ready(new JobBrowser.Query(null, null, 2, 0));
    JobBrowser.Page rest = browser.ready(new JobBrowser.Query(null, null, 2, page.nextOffset()));

    assertEquals(List.of("first", "second"), ids(page));
    assertEquals(List.of("third"), ids(rest));
    assertEquals(-1, rest.nextOffset());
  }

  @Test
  void aLimitOutOfRangeIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> new JobBrowser.Query(null, null, 0, 0));
    assertThrows(IllegalArgumentException.class, () -> new JobBrowser.Query(null, null, 1001, 0));
  }
}

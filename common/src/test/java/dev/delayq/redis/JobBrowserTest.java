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
  private final JobBrowser browser = new JobBrowser(RedisFixture.get().redis(), broker.keys());

  private void enqueue(String id, String type, long dueAt) {
    broker.enqueue(new NewJob(id, QueueProbe.head(type, 5), "{\"id\":\"" + id + "\"}", dueAt, true));
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
  void inFlightJobsListConsumerByConsumerInClaimOrderWithTheRunningOneMarked() {
    long now = probe.redisNowMs();
    for (String id : List.of("c1-a", "c1-b", "c1-c")) {
      enqueue(id, "order_close", now - 1_000);
    }
    List<Claimed> batch = broker.claims().claimReady("w-1", 30_000, 3, null).jobs();
    assertEquals(List.of("c1-a", "c1-b", "c1-c"), batch.stream().map(Claimed::id).toList());
    broker.starts().start("w-1", batch.get(1).delivery(), null); // its handler started c1-b; c1-c waits in the batch
    probe.seedInFlight("w-0", QueueProbe.at("c0-a", "{}", now - 1_000)); // claimed and started by w-0
    enqueue("still-ready", "order_close", now - 1_000);

    JobBrowser.Page page = browser.inFlight(new JobBrowser.Query(null, null, 50, 0));

    assertEquals(List.of("c0-a", "c1-a", "c1-b", "c1-c"), ids(page), "consumers by name, each in claim order");
    assertEquals(List.of("w-0", "w-1", "w-1", "w-1"), page.rows().stream().map(JobBrowser.Row::consumer).toList());
    assertEquals(List.of(true, false, true, false), page.rows().stream().map(JobBrowser.Row::running).toList());
    assertEquals("order_close", page.rows().get(2).type());
    assertEquals(-1, page.nextOffset());
    assertEquals(List.of("c1-a", "c1-b", "c1-c"),
        ids(browser.inFlight(new JobBrowser.Query("order_close", "c1-", 50, 0))));

    List<String> seen = new ArrayList<>();
    long offset = 0;
    while (offset >= 0) {
      JobBrowser.Page p = browser.inFlight(new JobBrowser.Query(null, null, 3, offset));
      seen.addAll(ids(p));
      offset = p.nextOffset();
    }
    assertEquals(ids(page), seen, "pages of 3 follow one another without gaps or repeats");
  }

  @Test
  void pagesFollowOneAnotherByOffsetWithoutGapsOrRepeats() {
    long now = probe.redisNowMs();
    List<NewJob> jobs = new ArrayList<>();
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

    assertEquals(jobs.stream().map(NewJob::id).toList(), seen);
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

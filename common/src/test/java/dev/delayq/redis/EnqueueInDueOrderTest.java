package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A round trip of many jobs (RedisBroker.enqueueAll) goes to Redis in due order, cut into script
 * calls of 100, so a call's wheel adds share buckets: each caller still gets its own job's answer
 * in its own place, jobs due now reach ready in the caller's order, and a round trip where an id
 * comes twice keeps the caller's order (the first job stands).
 */
class EnqueueInDueOrderTest {
  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final QueueProbe probe = new QueueProbe(broker);
  private final InvariantCheck invariant = new InvariantCheck(RedisFixture.get().redis(), broker.keys());
  private final String head = QueueProbe.head(QueueProbe.TYPE, QueueProbe.MAX_ATTEMPTS);

  @Test
  void aThousandJobsDueAtRandomEachGetTheirOwnDueTimeInTheCallersOrder() {
    long now = probe.redisNowMs();
    Random random = new Random(37);
    List<NewJob> jobs = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      jobs.add(new NewJob("j" + i, head, "{\"i\":" + i + "}", now + 60_000 + random.nextInt(60_000), true));
    }

    List<Enqueued> replies = broker.enqueueAll(jobs);

    assertEquals(1000, replies.size());
    for (int i = 0; i < 1000; i++) {
      assertEquals(new Enqueued(EnqueueCode.ACCEPTED, jobs.get(i).when()), replies.get(i), "job " + i);
      assertEquals(jobs.get(i).when(), probe.dueAt("j" + i), "j" + i);
      assertTrue(probe.rawRecord("j" + i).endsWith("\"p\":{\"i\":" + i + "}}"), probe.rawRecord("j" + i));
    }
    assertEquals(List.of(), invariant.breaches());
  }

  @Test
  void jobsDueNowAmongLaterOnesReachReadyInTheCallersOrder() {
    long now = probe.redisNowMs();
    List<NewJob> jobs = new ArrayList<>();
    List<String> dueNow = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      boolean due = i % 3 == 0;
      // later ones come first in due order: without the care for jobs due now they would be sent after them
      jobs.add(new NewJob("j" + i, head, "{}", due ? now - i : now + 600_000 - i * 1_000L, true));
      if (due) {
        dueNow.add("j" + i);
      }
    }

    broker.enqueueAll(jobs);

    List<String> takenFromTheRight = new ArrayList<>(probe.readyIds());
    Collections.reverse(takenFromTheRight);
    assertEquals(dueNow, takenFromTheRight);
    assertEquals(200, probe.delayedIds().size());
  }

  @Test
  void anIdTwiceInARoundTripKeepsTheCallersOrderTheFirstJobStands() {
    long now = probe.redisNowMs();
    List<NewJob> jobs = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      jobs.add(new NewJob("j" + i, head, "{\"i\":" + i + "}", now + 600_000 - i * 1_000L, true));
    }
    // due before all the others: in due order it would be sent first and stand
    jobs.add(new NewJob("j5", head, "{\"again\":true}", now + 100_000, true));

    List<Enqueued> replies = broker.enqueueAll(jobs);

    assertEquals(new Enqueued(EnqueueCode.ACCEPTED, now + 595_000), replies.get(5));
    assertEquals(EnqueueCode.PENDING, replies.get(300).code(), "the second job of j5 changes nothing");
    assertEquals(now + 595_000, probe.dueAt("j5"));
    assertTrue(probe.rawRecord("j5").endsWith("\"p\":{\"i\":5}}"), probe.rawRecord("j5"));
  }
}

package dev.delayq.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.delayq.Schedules;
import dev.delayq.schedule.Cadence;
import dev.delayq.schedule.Schedule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The only scheduler of a queue kill -9'd while an every-second schedule ticks, and started again
 * more than three ticks later. No worker runs, so every job the ticks created stays in Redis to
 * be counted: each tick has at most one job; the ticks that fell while no scheduler ran get none
 * with "skip", and exactly one job, for the latest of them and saying how many it stands for,
 * with "run once"; the schedule then goes on tick by tick.
 */
class ScheduleRestartTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @ParameterizedTest
  @EnumSource(Schedule.Missed.class)
  void aRestartSpanningThreeTicksSkipsThemOrRunsThemOnce(Schedule.Missed policy) throws Exception {
    QueueUnderTest q = new QueueUnderTest();
    try (JvmProcesses processes = q.processes("scheduleRestart-" + policy)) {
      Process scheduler = processes.scheduler("scheduler");
      await().atMost(30, TimeUnit.SECONDS).until(() -> q.redis.redis().get(q.keys.leader()) != null);
      Schedules schedules = q.producer.schedules();
      schedules.upsert(new Schedule("tick", new Cadence.Every(Duration.ofSeconds(1)), "test_record", "{}", 1, false,
          policy));

      await().atMost(15, TimeUnit.SECONDS).until(() -> ticks(q).size() >= 3);
      JvmProcesses.sigkill(scheduler);
      long killedAt = System.currentTimeMillis();
      // the ticks due within 1.5 s of the kill had their jobs created ahead: down for three more
      Thread.sleep(4_100);
      processes.scheduler("scheduler");
      await().atMost(30, TimeUnit.SECONDS).until(() -> {
        List<Long> t = new ArrayList<>(ticks(q).keySet());
        return t.size() >= 3 && t.get(t.size() - 1) > killedAt + 6_000;
      });
      schedules.remove("tick");

      TreeMap<Long, JsonNode> jobs = ticks(q);
      List<Long> ticks = new ArrayList<>(jobs.keySet());
      List<Long> gaps = new ArrayList<>();
      for (int i = 1; i < ticks.size(); i++) {
        gaps.add(ticks.get(i) - ticks.get(i - 1));
      }
      List<Long> stoodFor = new ArrayList<>();
      jobs.forEach((tick, record) -> {
        if (record.has("missedTicks")) {
          stoodFor.add(record.get("missedTicks").asLong());
        }
      });
      System.out.printf("schedule restart (%s), kill -9 at %d: gaps between created ticks %s, catch-up jobs for %s ticks%n",
          policy, killedAt, gaps, stoodFor);

      assertTrue(gaps.stream().allMatch(g -> g > 0 && g % 1_000 == 0), "every tick at most once: " + gaps);
      long longGaps = gaps.stream().filter(g -> g > 1_000).count();
      if (policy == Schedule.Missed.SKIP) {
        assertEquals(1, longGaps, "one stretch of missed ticks: " + gaps);
        assertTrue(gaps.stream().anyMatch(g -> g >= 4_000), "three or more ticks skipped: " + gaps);
        assertEquals(List.of(), stoodFor, "no catch-up job");
      } else {
        assertEquals(1, stoodFor.size(), "exactly one job for the missed ticks: " + jobs.keySet());
        assertTrue(stoodFor.get(0) >= 3, "it stands for three or more ticks: " + stoodFor);
        assertTrue(longGaps <= 1, "the schedule goes on tick by tick: " + gaps);
        long catchUp = jobs.entrySet().stream().filter(e -> e.getValue().has("missedTicks")).findFirst()
            .orElseThrow().getKey();
        assertTrue(jobs.containsKey(catchUp + 1_000) || jobs.lastKey() == catchUp,
            "the next tick after the catch-up follows it: " + ticks);
      }
      assertEquals(List.of(), q.invariant.breaches());
    }
  }

  /** The jobs the schedule's ticks created, by tick, each with its record. */
  private static TreeMap<Long, JsonNode> ticks(QueueUnderTest q) throws Exception {
    TreeMap<Long, JsonNode> out = new TreeMap<>();
    for (Map.Entry<String, String> e : q.redis.redis().hgetAll(q.keys.jobs()).entrySet()) {
      if (e.getKey().startsWith("tick@")) {
        out.put(Long.parseLong(e.getKey().substring("tick@".length())), JSON.readTree(e.getValue()));
      }
    }
    return out;
  }
}

package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link RecordPreviews} through previewRecords.lua: what a list shows of each job, its payload cut
 * in Redis with the payload's size named, whatever the records hold.
 */
class RecordPreviewsTest {
  private final RedisBroker broker = RedisFixture.get().broker(RedisFixture.freshKeys());
  private final QueueProbe probe = new QueueProbe(broker);
  private final RecordPreviews previews = new RecordPreviews(RedisFixture.get().redis(), broker.keys(), 100);

  private String enqueue(String id, String payload, long dueAt) {
    broker.enqueue(QueueProbe.at(id, payload, dueAt));
    return payload;
  }

  @Test
  void aLargePayloadIsCutToThePreviewAndNamesItsSize() {
    long due = probe.redisNowMs() + 3_600_000;
    String payload = enqueue("big", "{\"blob\":\"" + "x".repeat(50_000) + "\"}", due);
    enqueue("small", "{\"n\":1}", due);

    List<RecordPreviews.Preview> got = previews.of(List.of("big", "small"));

    RecordPreviews.Preview big = got.get(0);
    assertEquals(RecordPreviews.Shape.OK, big.shape());
    assertEquals(QueueProbe.TYPE, big.type());
    assertEquals(due, big.dueAt());
    assertEquals(1, big.attempt());
    assertEquals(QueueProbe.MAX_ATTEMPTS, big.maxAttempts());
    assertEquals(payload.substring(0, 100), big.payload());
    assertEquals(payload.length(), big.payloadBytes());
    assertTrue(big.cut());
    RecordPreviews.Preview small = got.get(1);
    assertEquals("{\"n\":1}", small.payload());
    assertEquals(7, small.payloadBytes());
    assertFalse(small.cut());
  }

  @Test
  void aCutNeverSplitsACharacter() {
    // 99 ASCII bytes, then 3-byte characters: byte 100 is the first of one
    String payload = "{\"s\":\"" + "a".repeat(93) + "€".repeat(50) + "\"}";
    enqueue("euro", payload, probe.redisNowMs() + 60_000);

    RecordPreviews.Preview p = previews.of(List.of("euro")).get(0);

    assertEquals(payload.substring(0, 99), p.payload());
    assertEquals(payload.getBytes(StandardCharsets.UTF_8).length, p.payloadBytes());
    assertTrue(p.cut());
  }

  @Test
  void missingAndMalformedRecordsSayWhatTheyAre() {
    RedisFixture.get().redis().hset(broker.keys().jobs(), "junk", "not json " + "z".repeat(500));
    // what a dead-letter keeps of an unreadable record
    RedisFixture.get().redis().hset(broker.keys().jobs(), "wrapped",
        "{\"t\":\"?\",\"deadAt\":1,\"lastError\":\"unreadable\",\"malformed\":\"" + "q".repeat(300) + "\"}");

    List<RecordPreviews.Preview> got = previews.of(List.of("gone", "junk", "wrapped"));

    assertEquals(RecordPreviews.Shape.MISSING, got.get(0).shape());
    assertEquals(RecordPreviews.Shape.MALFORMED, got.get(1).shape());
    assertEquals("not json " + "z".repeat(91), got.get(1).payload());
    assertEquals(509, got.get(1).payloadBytes());
    assertEquals(RecordPreviews.Shape.MALFORMED, got.get(2).shape());
    assertEquals("unreadable", got.get(2).lastError());
    assertEquals("q".repeat(100), got.get(2).payload());
    assertEquals(300, got.get(2).payloadBytes());
  }

  @Test
  void recordsBeyondOneCallsBudgetComeBackAllInOrder() {
    long due = probe.redisNowMs() + 3_600_000;
    List<String> ids = new ArrayList<>();
    // 12 MB of records: more than one call reads
    for (int i = 0; i < 12; i++) {
      enqueue("m" + i, "{\"i\":" + i + ",\"blob\":\"" + "y".repeat(1_000_000) + "\"}", due);
      ids.add("m" + i);
    }

    List<RecordPreviews.Preview> got = previews.of(ids);

    assertEquals(ids, got.stream().map(RecordPreviews.Preview::id).toList());
    for (int i = 0; i < 12; i++) {
      assertTrue(got.get(i).payload().startsWith("{\"i\":" + i + ","), got.get(i).payload());
      assertTrue(got.get(i).cut());
    }
  }
}

package dev.delayq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.config.ConfigLoader;
import dev.delayq.config.DelayqConfig;
import dev.delayq.redis.Keys;
import dev.delayq.redis.RedisBroker;
import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The producer API against the fixture's Redis: validation, payload encoding, batches, cancel. */
class DelayQueueTest {
  private final Keys keys = RedisFixture.freshKeys();
  private final RedisBroker broker = RedisFixture.get().broker(keys);
  private final QueueProbe probe = new QueueProbe(broker);
  private final DelayQueue queue = new DelayQueue(broker, 1_048_576, 5);

  record Order(long orderId, String note, List<Integer> lines) {}

  /** Asserts {@code call} is refused with a message containing each part, and nothing was stored. */
  private void assertRefused(Executable call, String... parts) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
    for (String part : parts) {
      assertTrue(e.getMessage().contains(part), "'" + e.getMessage() + "' should contain '" + part + "'");
    }
    assertEquals(0, probe.recordCount(), "nothing enqueued");
  }

  private String payloadOf(String id) {
    String raw = probe.rawRecord(id);
    String marker = ",\"p\":";
    return raw.substring(raw.indexOf(marker) + marker.length(), raw.length() - 1);
  }

  /** One in 64 URL-safe base64 strings begins with '-', which a command line reads as an option. */
  @Test
  void aGeneratedIdIsTwelveUrlSafeCharactersAndNeverBeginsWithADash() {
    Set<Character> firsts = new HashSet<>();
    for (int i = 0; i < 100_000; i++) {
      String id = JobIds.newId();
      assertTrue(id.matches("[A-Za-z0-9_-]{12}"), id);
      assertFalse(id.startsWith("-"), id);
      firsts.add(id.charAt(0));
    }
    assertEquals(63, firsts.size(), "every other first character still comes: " + firsts);
  }

  // ---- bad input ---------------------------------------------------------------------------

  @Test
  void headersAreStoredWithTheJobAndAJobWithoutThemHasTheRecordOfBefore() {
    String with = queue.delay("order_close", Map.of("order_id", 1), Duration.ofMinutes(1),
        JobOptions.defaults().header("tenant", "acme").header("request-id", "r-17")).id();
    String without = queue.delay("order_close", Map.of("order_id", 2), Duration.ofMinutes(1)).id();

    assertTrue(probe.rawRecord(with).startsWith(
        "{\"t\":\"order_close\",\"m\":5,\"h\":[\"request-id\",\"r-17\",\"tenant\",\"acme\"],"),
        probe.rawRecord(with));
    assertFalse(probe.rawRecord(without).contains("\"h\""), probe.rawRecord(without));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "has space", "new\nline", "ü"})
  void badHeaderNameIsRefusedNamingIt(String name) {
    assertRefused(() -> queue.delay("t", "{}", Duration.ZERO, JobOptions.defaults().header(name, "v")),
        "header name '" + name + "'");
  }

  @Test
  void headerValueOverTheLimitIsRefused() {
    assertRefused(() -> queue.delay("t", "{}", Duration.ZERO, JobOptions.defaults().header("big", "x".repeat(1025))),
        "header 'big' is 1025 characters long, over the limit of 1024");
  }

  @Test
  void emptyTypeIsRefused() {
    assertRefused(() -> queue.delay("", "{}", Duration.ZERO), "job type is empty");
    assertRefused(() -> queue.delay(null, "{}", Duration.ZERO), "job type is empty");
  }

  @ParameterizedTest
  @ValueSource(strings = {"OrderClose", "order close", "order/close",
      "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"})
  void malformedTypeIsRefusedNamingIt(String type) {
    assertRefused(() -> queue.delay(type, "{}", Duration.ZERO), "job type '" + type + "' is not valid", "1 to 64");
  }

  @Test
  void typeOfSixtyFourCharactersIsAccepted() {
    assertTrue(queue.delay("a".repeat(64), "{}", Duration.ZERO).accepted());
  }

  @Test
  void negativeDelayIsRefused() {
    assertRefused(() -> queue.delay("t", "{}", Duration.ofSeconds(-1)), "delay must not be negative", "PT-1S");
  }

  @Test
  void payloadOverTheLimitIsRefusedNamingTheLimit() {
    DelayQueue small = new DelayQueue(broker, 100, 5);
    String atLimit = "{\"s\":\"" + "x".repeat(92) + "\"}";
    assertEquals(100, atLimit.length());

    assertTrue(small.delay("t", atLimit, Duration.ZERO, JobOptions.withId("at-limit")).accepted());
    assertTrue(broker.cancel("at-limit"));
    assertRefused(() -> small.delay("t", "{\"s\":\"" + "x".repeat(93) + "\"}", Duration.ZERO),
        "payload is 101 bytes", "over the limit of 100 bytes", "queue.maxPayloadBytes");
  }

  @Test
  void payloadSizeIsCountedInUtf8Bytes() {
    DelayQueue small = new DelayQueue(broker, 100, 5);

    assertRefused(() -> small.delay("t", "{\"s\":\"" + "é".repeat(50) + "\"}", Duration.ZERO),
        "payload is 108 bytes");
  }

  @ParameterizedTest
  @ValueSource(strings = {"{not json", "", "{\"a\":1} trailing", "{\"a\":1}{\"b\":2}"})
  void payloadThatIsNotJsonIsRefused(String payload) {
    assertRefused(() -> queue.delay("t", payload, Duration.ZERO), "payload is not JSON");
  }

  @ParameterizedTest
  @ValueSource(strings = {"has space", "", "ünï", "semi;colon"})
  void invalidIdIsRefusedNamingIt(String id) {
    assertRefused(() -> queue.delay("t", "{}", Duration.ZERO, JobOptions.withId(id)),
        "job id '" + id + "' is not valid");
  }

  @Test
  void idLongerThan128IsRefused() {
    assertRefused(() -> JobOptions.withId("x".repeat(129)), "is not valid", "1 to 128");
  }

  @Test
  void maxAttemptsOutOfRangeIsRefused() {
    assertRefused(() -> JobOptions.defaults().maxAttempts(0), "maxAttempts must be between 1 and 1000, got 0");
  }

  @Test
  void requestWithNeitherOrBothTimesIsRefused() {
    assertRefused(() -> new JobRequest("t", "{}", null, null, null), "either a delay or a due time, not neither");
    assertRefused(() -> new JobRequest("t", "{}", Duration.ZERO, Instant.now(), null), "not both");
  }

  // ---- payloads and records ----------------------------------------------------------------

  @Test
  void objectPayloadIsStoredAsCompactJson() {
    queue.delay("order_close", new Order(1001, "ünï ✓", List.of(1, 2)), Duration.ofMinutes(30),
        JobOptions.withId("order-1001"));

    assertEquals("{\"orderId\":1001,\"note\":\"ünï ✓\",\"lines\":[1,2]}", payloadOf("order-1001"));
    assertEquals("order_close", probe.record("order-1001").get("type").asText());
  }

  @Test
  void mapPayloadIsStoredAsJson() {
    queue.delay("t", Map.of("order_id", 1001), Duration.ZERO, JobOptions.withId("j1"));

    assertEquals("{\"order_id\":1001}", payloadOf("j1"));
  }

  @Test
  void jsonStringPayloadIsStoredAsCompactJson() {
    queue.delay("t", "{ \"a\" : 1,\n  \"b\" : [ 1, 2 ],\n  \"c\" : \"x y\" }", Duration.ZERO, JobOptions.withId("j1"));

    assertEquals("{\"a\":1,\"b\":[1,2],\"c\":\"x y\"}", payloadOf("j1"));
  }

  @Test
  void jsonStringPayloadKeepsItsNumbersExactly() {
    String payload = "{\"big\":12345678901234567890,\"price\":0.1000000000000000055511151231257827,"
        + "\"huge\":1E+400,\"amount\":19.99}";

    queue.delay("t", payload, Duration.ZERO, JobOptions.withId("j1"));

    assertEquals(payload, payloadOf("j1"));
  }

  @Test
  void recordCarriesTypeAndMaxAttempts() {
    queue.delay("t", "{}", Duration.ofMinutes(1), JobOptions.withId("default"));
    queue.delay("t", "{}", Duration.ofMinutes(1), JobOptions.withId("custom").maxAttempts(9));

    assertEquals(5, probe.record("default").get("maxAttempts").asInt());
    assertEquals(9, probe.record("custom").get("maxAttempts").asInt());
    assertEquals(1, probe.record("custom").get("attempt").asInt());
  }

  // ---- due times and ids -------------------------------------------------------------------

  @Test
  void delayIsCountedFromRedisTime() {
    long before = probe.redisNowMs();
    EnqueueResult r = queue.delay("t", "{}", Duration.ofMinutes(30));
    long after = probe.redisNowMs();

    long due = r.dueAt().toEpochMilli();
    assertTrue(due >= before + 1_800_000 && due <= after + 1_800_000);
    assertEquals(List.of("delayed"), probe.placesOf(r.id()));
  }

  @Test
  void scheduleKeepsTheInstantToTheMillisecond() {
    Instant at = Instant.ofEpochMilli(probe.redisNowMs()).plus(Duration.ofHours(2)).plusNanos(123_456_789);

    EnqueueResult r = queue.schedule("t", "{}", at);

    assertEquals(at.toEpochMilli(), r.dueAt().toEpochMilli());
    assertEquals(at.toEpochMilli(), probe.dueAt(r.id()));
  }

  @Test
  void pastInstantIsDueAtOnce() {
    EnqueueResult r = queue.schedule("t", "{}", Instant.parse("2020-01-01T00:00:00Z"));

    assertEquals(List.of("ready"), probe.placesOf(r.id()));
  }

  @Test
  void generatedIdsAreUniqueAndUrlSafe() {
    String a = queue.delay("t", "{}", Duration.ZERO).id();
    String b = queue.delay("t", "{}", Duration.ZERO).id();

    assertFalse(a.equals(b));
    assertTrue(a.matches("[A-Za-z0-9_-]{12}"), a);
  }

  @Test
  void aGeneratedIdThatMeetsAStoredJobIsSentAgainUnderANewOneAndTheStoredJobIsUntouched() {
    queue.delay("t", "{\"v\":\"theirs\"}", Duration.ofMinutes(5), JobOptions.withId("taken-pending"));
    String pendingRecord = probe.rawRecord("taken-pending");
    probe.seedDead("c1", "taken-dead", "boom");
    // the first generated ids meet those jobs, one by one and in a batch
    java.util.Iterator<String> made = List.of("taken-pending", "fresh-1", "taken-dead", "taken-pending",
        "fresh-2", "fresh-3").iterator();
    DelayQueue colliding = new DelayQueue(broker, 1_048_576, 5, made::next);

    EnqueueResult one = colliding.delay("t", "{\"v\":\"mine\"}", Duration.ofMinutes(1));
    List<EnqueueResult> batch = colliding.enqueueAll(List.of(
        JobRequest.delay("t", "{\"v\":\"a\"}", Duration.ofMinutes(1)),
        JobRequest.delay("t", "{\"v\":\"b\"}", Duration.ofMinutes(1))));

    assertEquals("fresh-1", one.id());
    assertTrue(one.accepted());
    assertEquals(List.of("fresh-2", "fresh-3"), batch.stream().map(EnqueueResult::id).toList());
    assertTrue(batch.stream().allMatch(EnqueueResult::accepted));
    assertEquals("{\"v\":\"mine\"}", payloadOf("fresh-1"));
    assertEquals(pendingRecord, probe.rawRecord("taken-pending"), "the stored job is not this one's");
    assertEquals(List.of("dead"), probe.placesOf("taken-dead"));
  }

  @Test
  void sameIdTwiceIsADuplicateThatChangesNothing() {
    EnqueueResult first = queue.delay("t", "{\"v\":1}", Duration.ofMinutes(5), JobOptions.withId("order-1"));
    String record = probe.rawRecord("order-1");

    EnqueueResult second = queue.delay("t", "{\"v\":2}", Duration.ofMinutes(9), JobOptions.withId("order-1"));

    assertTrue(first.accepted());
    assertTrue(second.duplicate());
    assertEquals("order-1", second.id());
    assertNull(second.dueAt());
    assertEquals(record, probe.rawRecord("order-1"));
  }

  // ---- batches -----------------------------------------------------------------------------

  @Test
  void batchOfFiveThousandIsEnqueuedAndReportsDuplicates() {
    queue.delay("t", "{}", Duration.ofHours(1), JobOptions.withId("job-17"));
    List<JobRequest> requests = new ArrayList<>();
    for (int i = 0; i < 5_000; i++) {
      requests.add(JobRequest.delay("t", Map.of("i", i), Duration.ofHours(1)).with(JobOptions.withId("job-" + i)));
    }
    requests.add(JobRequest.delay("t", "{}", Duration.ofHours(1)).with(JobOptions.withId("job-4999")));

    List<EnqueueResult> results = queue.enqueueAll(requests);

    assertEquals(5_001, results.size());
    assertEquals(List.of("job-17", "job-4999"),
        results.stream().filter(EnqueueResult::duplicate).map(EnqueueResult::id).toList());
    assertEquals("job-0", results.get(0).id());
    assertEquals("job-4999", results.get(4_999).id());
    assertTrue(results.get(4_999).accepted());
    assertEquals(5_000, probe.recordCount());
    assertEquals(5_000, probe.delayedIds().size());
    assertEquals("{\"i\":4321}", payloadOf("job-4321"));
  }

  @Test
  void badRequestRejectsTheWholeBatchNamingItsIndex() {
    List<JobRequest> requests = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      requests.add(JobRequest.delay(i == 7 ? "Bad Type" : "t", "{}", Duration.ofMinutes(1)));
    }

    assertRefused(() -> queue.enqueueAll(requests), "job 7 of the batch", "job type 'Bad Type' is not valid");
    assertEquals(List.of(), probe.delayedIds());
  }

  @Test
  void emptyBatchEnqueuesNothing() {
    assertEquals(List.of(), queue.enqueueAll(List.of()));
  }

  // ---- cancel ------------------------------------------------------------------------------

  @Test
  void cancelSucceedsWhileDelayedOrReadyAndNotAfter() {
    String delayed = queue.delay("t", "{}", Duration.ofHours(1)).id();
    String ready = queue.delay("t", "{}", Duration.ZERO).id();

    assertTrue(queue.cancel(delayed));
    assertTrue(queue.cancel(ready));
    assertFalse(queue.cancel(delayed));
    assertFalse(queue.cancel(ready));
    assertEquals(0, probe.recordCount());
  }

  @Test
  void cancelFailsOnceTheJobRuns() {
    String id = queue.delay("t", "{}", Duration.ZERO).id();
    broker.claims().claim("c1", 1.0, 30_000).orElseThrow();

    assertFalse(queue.cancel(id));
    assertEquals(List.of("inflight:c1"), probe.placesOf(id));
  }

  // ---- connect -----------------------------------------------------------------------------

  @Test
  void connectUsesTheConfiguredRedisAndQueue() {
    DelayqConfig config = new ConfigLoader().load(null,
        Map.of("DELAYQ_REDIS_URL", RedisFixture.get().url(), "DELAYQ_QUEUE", keys.queue()));

    try (DelayQueue connected = DelayQueue.connect(config)) {
      EnqueueResult r = connected.delay("t", "{}", Duration.ofMinutes(1), JobOptions.withId("via-connect"));
      assertTrue(r.accepted());
    }

    assertEquals(List.of("delayed"), probe.placesOf("via-connect"));
    assertEquals(5, probe.record("via-connect").get("maxAttempts").asInt());
  }

  @Test
  void aProducerOfAnotherQueueOfTheSystemEnqueuesInThatQueueWithItsMaxAttempts() throws Exception {
    String low = keys.queue() + "-low";
    java.nio.file.Path file = java.nio.file.Files.createTempFile("delayq", ".yml");
    java.nio.file.Files.writeString(file, "queues:\n  " + low + ":\n    retry: {maxAttempts: 9}\n");
    DelayqConfig config = new ConfigLoader().load(file, Map.of("DELAYQ_REDIS_URL", RedisFixture.get().url(),
        "DELAYQ_QUEUE", keys.queue(), "DELAYQ_WORKER_QUEUES", keys.queue() + ":3," + low + ":1"));
    java.nio.file.Files.delete(file);

    try (DelayQueue lowQueue = DelayQueue.connect(config.forQueue(low))) {
      assertTrue(lowQueue.delay("t", "{}", Duration.ofMinutes(1), JobOptions.withId("to-low")).accepted());
    }

    QueueProbe lowProbe = new QueueProbe(RedisFixture.get().broker(new Keys(keys.prefix(), low)));
    assertEquals(List.of("delayed"), lowProbe.placesOf("to-low"));
    assertEquals(9, lowProbe.record("to-low").get("maxAttempts").asInt());
    assertEquals(List.of(), probe.placesOf("to-low"), "not in queue.name's queue");
  }
}

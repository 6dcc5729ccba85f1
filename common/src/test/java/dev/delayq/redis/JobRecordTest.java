package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link JobRecord#parse}: the record as workers read it. */
class JobRecordTest {

  @Test
  void fullRecordIsRead() throws Exception {
    JobRecord r = JobRecord.parse("j1", "{\"type\":\"order_close\",\"maxAttempts\":5,\"attempt\":2,"
        + "\"createdAt\":1700000000000,\"dueAt\":1700000060000,\"lastError\":\"boom\",\"lost\":1,"
        + "\"deadAt\":1700000070000,\"payload\":{\"order_id\":1001}}");

    assertEquals(new JobRecord("j1", "order_close", 2, 5, 1_700_000_000_000L, 1_700_000_060_000L, "boom", 1,
        1_700_000_070_000L, "{\"order_id\":1001}"), r);
  }

  @Test
  void aCompactRecordReadsAsTheSameJobAsItsFullNamesForm() throws Exception {
    JobRecord compact = JobRecord.parse("j1", "{\"t\":\"order_close\",\"m\":5,\"a\":2,\"c\":1700000000000,"
        + "\"d\":60000,\"k\":1,\"h\":[\"tenant\",\"acme\",\"traceparent\",\"00-abc\"],\"lastError\":\"boom\","
        + "\"lost\":1,\"deadAt\":1700000070000,\"p\":{\"order_id\":1001,\"p\":{\"payload\":1}}}");
    JobRecord full = JobRecord.parse("j1", "{\"type\":\"order_close\",\"maxAttempts\":5,\"attempt\":2,"
        + "\"createdAt\":1700000000000,\"dueAt\":1700000060000,\"keepId\":true,"
        + "\"headers\":{\"tenant\":\"acme\",\"traceparent\":\"00-abc\"},\"lastError\":\"boom\",\"lost\":1,"
        + "\"deadAt\":1700000070000,\"payload\":{\"order_id\":1001,\"p\":{\"payload\":1}}}");

    assertEquals(full, compact);
    assertEquals(1_700_000_060_000L, compact.dueAt(), "d is the due time in ms after c");
    assertEquals("{\"order_id\":1001,\"p\":{\"payload\":1}}", compact.payloadJson());
  }

  @Test
  void aNewHeadIsCompactAndAHeaderNamedPCannotPassForThePayload() throws Exception {
    String head = JobRecord.newHead("t", 3, true, java.util.Map.of("p", "x\"y", "a", "1"), "");
    String raw = head + ",\"c\":1700000000000,\"d\":5,\"p\":{\"n\":1}}";

    assertEquals("{\"t\":\"t\",\"m\":3,\"k\":1,\"h\":[\"a\",\"1\",\"p\",\"x\\\"y\"]", head);
    JobRecord r = JobRecord.parse("j", raw);
    assertEquals(java.util.Map.of("p", "x\"y", "a", "1"), r.headers());
    assertEquals("{\"n\":1}", r.payloadJson());
    assertEquals("{\"n\":1}", JobRecord.payloadOf(raw));
    assertEquals(head + ",\"c\":1700000000000,\"d\":5}", JobRecord.headOf(raw));
  }

  @Test
  void whetherTheIdStaysTakenIsReadFromTheHeadInEitherFormatAndNeverFromThePayload() {
    assertTrue(JobRecord.keepsId(JobRecord.newHead("t", 1, true, java.util.Map.of(), "") + ",\"c\":1,\"d\":0,\"p\":{}}"));
    assertFalse(JobRecord.keepsId(JobRecord.newHead("t", 1, false, java.util.Map.of(), "")
        + ",\"c\":1,\"d\":0,\"p\":{\"x\":\",\\\"k\\\":1\"}}"));
    assertTrue(JobRecord.keepsId("{\"type\":\"t\",\"keepId\":true,\"payload\":{}}"));
    assertFalse(JobRecord.keepsId("{\"type\":\"t\",\"payload\":{\"keepId\":true}}"));
  }

  @Test
  void absentOptionalFieldsAreZeroOrNull() throws Exception {
    JobRecord r = JobRecord.parse("j1", "{\"type\":\"t\",\"payload\":[1,2]}");

    assertEquals(1, r.attempt());
    assertNull(r.lastError());
    assertEquals(0, r.lost());
    assertEquals(0, r.deadAt());
    assertEquals("[1,2]", r.payloadJson());
  }

  @Test
  void aScheduledJobsRecordCarriesItsTickAndAnyOtherNone() throws Exception {
    JobRecord ticked = JobRecord.parse("s@1", "{\"type\":\"t\",\"maxAttempts\":3,\"schedule\":\"s\","
        + "\"tickAt\":1767225600000,\"attempt\":1,\"payload\":{\"tickAt\":5}}");
    JobRecord plain = JobRecord.parse("j2", "{\"type\":\"t\",\"maxAttempts\":3,\"attempt\":1,\"payload\":{\"tickAt\":5}}");

    assertEquals(1767225600000L, ticked.tickAt());
    assertEquals(0, plain.tickAt(), "a tickAt in the payload is the payload's, not the record's");
  }

  @Test
  void headersAreReadAndARecordFromBeforeHeadersHasNone() throws Exception {
    JobRecord with = JobRecord.parse("j1", "{\"type\":\"t\",\"maxAttempts\":3,"
        + "\"headers\":{\"traceparent\":\"00-abc-def-01\",\"tenant\":\"acme\"},\"attempt\":1,\"payload\":{}}");
    JobRecord before = JobRecord.parse("j2", "{\"type\":\"t\",\"maxAttempts\":3,\"attempt\":1,\"payload\":{}}");

    assertEquals(java.util.Map.of("traceparent", "00-abc-def-01", "tenant", "acme"), with.headers());
    assertEquals(3, with.maxAttempts());
    assertEquals(java.util.Map.of(), before.headers());
  }

  @ParameterizedTest
  @ValueSource(strings = {"{\"type\":\"t\",\"headers\":[1],\"payload\":{}}",
      "{\"type\":\"t\",\"headers\":{\"a\":1},\"payload\":{}}", "{\"t\":\"t\",\"h\":{\"a\":\"1\"},\"p\":{}}",
      "{\"t\":\"t\",\"h\":[\"a\",1],\"p\":{}}", "{\"t\":\"t\",\"h\":[\"a\"],\"p\":{}}", "{\"t\":\"t\",\"h\":[1,\"a\"],\"p\":{}}"})
  void headersThatAreNotStringsMakeTheRecordMalformedSayingSo(String raw) {
    JobRecord.MalformedRecordException e =
        assertThrows(JobRecord.MalformedRecordException.class, () -> JobRecord.parse("j1", raw));
    assertTrue(e.getMessage().contains("j1") && e.getMessage().contains("header"), e.getMessage());
  }

  @ParameterizedTest
  @ValueSource(strings = {"not json", "[1,2]", "{\"payload\":{}}", "{\"type\":7,\"payload\":{}}", "{\"type\":\"t\"}"})
  void unreadableRecordIsRefusedNamingTheJob(String raw) {
    JobRecord.MalformedRecordException e =
        assertThrows(JobRecord.MalformedRecordException.class, () -> JobRecord.parse("j1", raw));
    assertTrue(e.getMessage().startsWith("record of j1 "), e.getMessage());
  }
}

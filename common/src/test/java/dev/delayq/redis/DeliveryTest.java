package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class DeliveryTest {
  private final String kept = "{\"t\":\"x\",\"m\":1,\"k\":1,\"c\":1,\"d\":0,\"p\":{}}";
  /** Its payload holds the text that marks a kept id in a head: it must not count. */
  private final String plain = "{\"t\":\"x\",\"m\":1,\"c\":1,\"d\":0,\"p\":{\"s\":\",\\\"k\\\":1\"}}";
  private final Delivery d = new Delivery(42, "a");

  @Test
  void elementIsTheTokenAndTheId() {
    assertEquals("42|order:1001", new Delivery(42, "order:1001").element());
    assertEquals(new Delivery(42, "order:1001"), Delivery.parse("42|order:1001"));
  }

  @Test
  void aBareIdHasTokenZero() {
    assertEquals(new Delivery(0, "12:34"), Delivery.parse("12:34"));
    assertEquals("12:34", new Delivery(0, "12:34").element());
    assertEquals("x", Delivery.idOf("x"));
  }

  @Test
  void theCrashRecordSaysCancelledButNotWhatTheClaimedRecordSaidOfItsId() {
    assertEquals("!42|a", d.withRecord(kept).endedCancelled().ackElement());
    assertEquals("42|a", d.withRecord(kept).ackElement());
    assertEquals(d, d.withRecord(kept));
  }

  @Test
  void theAckHintSaysTheOutcomeAndWhatTheClaimedRecordSaidOfItsId() {
    assertEquals('u', d.ackHint(), "not known: the script reads the record");
    assertEquals('k', d.withRecord(kept).ackHint());
    assertEquals('f', d.withRecord(plain).ackHint());
    assertEquals('K', d.withRecord(kept).endedCancelled().ackHint());
    assertEquals('F', d.withRecord(plain).endedCancelled().ackHint());
    assertEquals('U', d.endedCancelled().ackHint());
    assertEquals('u', new Delivery(0, "a").withRecord(kept).ackHint(), "a bare id is never hinted");
  }
}

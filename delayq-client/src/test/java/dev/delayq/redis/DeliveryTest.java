package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class DeliveryTest {
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
}

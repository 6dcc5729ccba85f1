package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a worker reads of a record's head to end its job: whether it takes part in a workflow, its batch and waits. */
class WorkflowHeadTest {
  private static String record(String extra, String payload) {
    return JobRecord.newHead("t", 3, false, Map.of("h", ",\"wf\":1"), extra) + ",\"c\":1,\"d\":0,\"p\":" + payload + "}";
  }

  @Test
  void aHeadWithTheMarkTakesPartAndAPayloadOrHeaderHoldingItsTextDoesNot() {
    assertTrue(WorkflowHead.inWorkflow(record(",\"b\":\"b1\",\"w\":[\"a\",\"x\\\"y\"],\"wf\":1", "{}")));
    assertFalse(WorkflowHead.inWorkflow(record("", "{\"note\":\",\\\"wf\\\":1\",\"raw\":[1]}")));
    assertFalse(WorkflowHead.inWorkflow(record("", "\",\\\"wf\\\":1\"")));
    assertFalse(WorkflowHead.inWorkflow(null));
  }

  @Test
  void itsBatchAndWaitsAreReadFromTheHead() {
    WorkflowHead h = WorkflowHead.of(record(",\"b\":\"b1\",\"w\":[\"a\",\"x\\\"y\"],\"wf\":1", "{\"b\":\"not this\"}"));
    assertEquals("b1", h.batchId());
    assertEquals(List.of("a", "x\"y"), h.waitedFor());
    WorkflowHead none = WorkflowHead.of(record("", "{}"));
    assertNull(none.batchId());
    assertEquals(List.of(), none.waitedFor());
  }
}

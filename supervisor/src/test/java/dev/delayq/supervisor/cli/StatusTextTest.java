package dev.delayq.supervisor.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** The human form of {@code status}: what it says of a queue's pauses. */
class StatusTextTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void aPauseOnSomeShardsOnlyIsSaidAsSuchWithHowToFinishIt() throws Exception {
    String text = StatusText.format(JSON.readTree("""
        {"pid": 7, "status": {"children": [],
          "queue": {"delayed": 0, "ready": 0, "inFlight": 0, "dead": 0},
          "flow": {"paused": {"pay": 1}, "held": {"pay": 3},
                   "partlyPaused": {"*": {"shards": 2, "of": 3, "sinceMs": 1}}}}}
        """));
    assertTrue(text.contains("paused: pay\n"), text);
    assertTrue(text.contains("partly paused: the whole queue on 2 of 3 shards (pause or resume it again to finish)\n"), text);
    assertTrue(text.contains("held: pay 3\n"), text);
  }

  @Test
  void jobsWaitingForAHandlerAreCountedPerType() throws Exception {
    String text = StatusText.format(JSON.readTree("""
        {"pid": 7, "status": {"children": [],
          "queue": {"delayed": 0, "ready": 0, "inFlight": 0, "dead": 0},
          "flow": {"paused": {}, "held": {}, "partlyPaused": {}, "waitingForHandler": {"probe": 200}}}}
        """));
    assertTrue(text.contains("waiting for a handler: probe 200\n"), text);
  }

  @Test
  void jobsWaitingForOtherJobsAndOpenBatchesAreCountedOnlyOnAQueueThatHasThem() throws Exception {
    String plain = StatusText.format(JSON.readTree("""
        {"pid": 7, "status": {"children": [],
          "queue": {"delayed": 1, "ready": 2, "inFlight": 3, "dead": 4, "waiting": 0, "batchesOpen": 0},
          "flow": {}}}
        """));
    assertTrue(plain.contains("queue: 1 delayed, 2 ready, 3 in flight, 4 dead\n"), plain);
    String flows = StatusText.format(JSON.readTree("""
        {"pid": 7, "status": {"children": [],
          "queue": {"delayed": 1, "ready": 2, "inFlight": 3, "dead": 4, "waiting": 5, "batchesOpen": 6},
          "flow": {}}}
        """));
    assertTrue(flows.contains("queue: 1 delayed, 2 ready, 3 in flight, 4 dead, 5 waiting for other jobs, 6 batches open\n"),
        flows);
  }
}

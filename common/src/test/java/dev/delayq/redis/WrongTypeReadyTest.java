package dev.delayq.redis;

import static dev.delayq.testing.QueueProbe.at;
import static dev.delayq.testing.QueueProbe.delayed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.delayq.testing.QueueProbe;
import dev.delayq.testing.RedisFixture;
import java.util.List;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * A {@code ready} key another client set to another type (a string): no due job is left in no
 * place. The forward refuses before it takes anything, so due jobs wait in delayed; an enqueue of
 * a job due now fails before its record is written; {@code check} names the key.
 */
class WrongTypeReadyTest {
  private final Keys keys = RedisFixture.freshKeys();
  private final RedisBroker broker = RedisFixture.get().broker(keys);
  private final QueueProbe probe = new QueueProbe(broker);

  @Test
  void theForwardLeavesDueJobsInDelayedAndMovesThemOnceReadyIsAListAgain() {
    long due = broker.enqueue(at("due-1", "{}", probe.redisNowMs() + 50)).dueAt();
    probe.awaitRedisTimePast(due);
    RedisFixture.get().redis().set(keys.ready(), "planted");

    JedisDataException e = assertThrows(JedisDataException.class, () -> broker.scheduling().moveDueToReady(1000));

    assertTrue(e.getMessage().contains(keys.ready() + " holds a string, not a list"), e.getMessage());
    assertEquals(List.of("due-1"), probe.delayedIds(), "still in its one place");
    RedisFixture.get().redis().del(keys.ready());
    assertEquals(1, broker.scheduling().moveDueToReady(1000).moved());
    assertEquals(List.of("ready"), probe.placesOf("due-1"));
  }

  @Test
  void anEnqueueOfAJobDueNowFailsWithoutWritingItsRecordAndADelayedOneIsAccepted() {
    RedisFixture.get().redis().set(keys.ready(), "planted");

    JedisDataException e = assertThrows(JedisDataException.class, () -> broker.enqueue(delayed("now-1", "{}", 0)));

    assertTrue(e.getMessage().contains(keys.ready() + " holds a string, not a list"), e.getMessage());
    assertEquals(0, probe.recordCount(), "no record in no place");
    assertTrue(broker.enqueue(delayed("later-1", "{}", 60_000)).accepted());
    assertEquals(List.of("later-1"), probe.delayedIds());
    assertEquals(1, probe.recordCount());
  }

  @Test
  void checkNamesTheKeyOfTheWrongType() {
    RedisFixture.get().redis().set(keys.ready(), "planted");

    List<InvariantCheck.Breach> found = new InvariantCheck(RedisFixture.get().redis(), keys).breaches();

    assertEquals(List.of(new InvariantCheck.Breach(keys.ready(), InvariantCheck.Breach.Kind.WRONG_TYPE, List.of("string", "list"))),
        found);
    assertTrue(found.get(0).toString().startsWith("key " + keys.ready() + " holds a string, not a list"), found.toString());
  }
}

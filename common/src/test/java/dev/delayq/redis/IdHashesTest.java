package dev.delayq.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@link IdHashes}: the check's 8 bytes per id, looked up and merged once sorted. */
class IdHashesTest {
  @Test
  void idsAreFoundByTheirHashAndCountedAsOftenAsAdded() {
    IdHashes h = new IdHashes(2);
    for (String id : new String[] {"job-2", "job-1", "job-2", "order-1001"}) {
      h.add(id);
    }
    h.sort(false);

    assertEquals(4, h.size(), "grown past its first room, repeats kept");
    assertEquals(2, h.count(IdHashes.of("job-2")));
    assertEquals(1, h.count(IdHashes.of("order-1001")));
    assertTrue(h.contains("job-1"));
    assertFalse(h.contains("job-3"));
  }

  @Test
  void aDistinctSortDropsRepeatsAndRetainKeepsWhatBothHave() {
    IdHashes a = new IdHashes(8);
    IdHashes b = new IdHashes(8);
    for (String id : new String[] {"a", "b", "c", "b"}) {
      a.add(id);
    }
    for (String id : new String[] {"c", "d", "b"}) {
      b.add(id);
    }
    a.sort(true).retainAll(b.sort(true));

    assertEquals(2, a.size());
    assertTrue(a.contains("b") && a.contains("c"));
    assertFalse(a.contains("a"));
  }

  @Test
  void aMillionIdsOfOneShapeHaveAMillionHashes() {
    Set<Long> seen = new HashSet<>();
    for (int i = 0; i < 1_000_000; i++) {
      seen.add(IdHashes.of("job-" + i));
    }
    assertEquals(1_000_000, seen.size());
    assertNotEquals(IdHashes.of("ab"), IdHashes.of("ba"));
  }

  @Test
  void aLookupBeforeTheSortIsRefused() {
    IdHashes h = new IdHashes(4);
    h.add("x");
    assertThrows(IllegalStateException.class, () -> h.contains("x"));
  }

  @Test
  void aCheckTooLargeForTheHeapIsRefusedNamingWhatItNeeds() {
    HashedLook.fits(4_000_000, 128L << 20);
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> HashedLook.fits(10_000_000, 128L << 20));
    assertEquals("checking 10,000,000 jobs holds about 152 MB of id hashes (16 bytes a job), more than this JVM's"
        + " heap of 128 MB leaves room for: run it with -Xmx369m or more (bin/delayq takes JVM options from"
        + " DELAYQ_CLI_OPTS)", e.getMessage());
  }
}

package dev.delayq.redis;

import java.util.Arrays;

/**
 * 64-bit hashes of job ids in one primitive array: what the check holds of each id it reads
 * (8 bytes, where a String in a HashMap costs some 100), sorted once it has them all so that two
 * walks meet by merging and a lookup is a binary search. Two ids with one hash are one to it: the
 * check takes what differs between hashes only as candidates and confirms each by its id
 * ({@link InvariantCheck}).
 */
final class IdHashes {
  private long[] hashes;
  private int size;
  private boolean sorted = true;

  /** Room for {@code expected} hashes before it grows (a depth read just before: no copy on the way). */
  IdHashes(long expected) {
    hashes = new long[(int) Math.min(Integer.MAX_VALUE - 8, Math.max(16, expected))];
  }

  /** The id's 64-bit hash: FNV-1a over its chars, then murmur3's finalizer to spread the bits. */
  static long of(String id) {
    long h = 0xcbf29ce484222325L;
    for (int i = 0; i < id.length(); i++) {
      h ^= id.charAt(i);
      h *= 0x100000001b3L;
    }
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    h ^= h >>> 33;
    return h;
  }

  void add(String id) {
    addHash(of(id));
  }

  void addHash(long h) {
    if (size == hashes.length) {
      // half again: a doubling of 10 million would ask for 80 MB more at once
      hashes = Arrays.copyOf(hashes, (int) Math.min(Integer.MAX_VALUE - 8, size + (size >> 1) + 16L));
    }
    hashes[size++] = h;
    sorted = false;
  }

  int size() {
    return size;
  }

  /** Sorts in place; {@code distinct} drops repeats (a hash walked by HSCAN may be returned twice). */
  IdHashes sort(boolean distinct) {
    Arrays.sort(hashes, 0, size);
    sorted = true;
    if (distinct && size > 0) {
      int kept = 1;
      for (int i = 1; i < size; i++) {
        if (hashes[i] != hashes[kept - 1]) {
          hashes[kept++] = hashes[i];
        }
      }
      size = kept;
    }
    return this;
  }

  /** How many times {@code h} was added (sorted first). */
  int count(long h) {
    int at = first(h);
    int n = 0;
    while (at + n < size && hashes[at + n] == h) {
      n++;
    }
    return n;
  }

  boolean contains(long h) {
    int at = first(h);
    return at < size && hashes[at] == h;
  }

  boolean contains(String id) {
    return contains(of(id));
  }

  /** Keeps the hashes {@code other} has too; both sorted without repeats. */
  IdHashes retainAll(IdHashes other) {
    int kept = 0;
    int o = 0;
    for (int i = 0; i < size; i++) {
      while (o < other.size && other.hashes[o] < hashes[i]) {
        o++;
      }
      if (o < other.size && other.hashes[o] == hashes[i]) {
        hashes[kept++] = hashes[i];
      }
    }
    size = kept;
    return this;
  }

  long get(int i) {
    return hashes[i];
  }

  /** The index of the first hash not below {@code h}. */
  private int first(long h) {
    if (!sorted) {
      throw new IllegalStateException("IdHashes looked up before it was sorted");
    }
    int lo = 0;
    int hi = size;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (hashes[mid] < h) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
}

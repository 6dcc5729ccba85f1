package dev.delayq.redis;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import redis.clients.jedis.UnifiedJedis;

/**
 * Which of a shard's fixed keys hold a Redis type other than the layout's (docs/redis-layout.md):
 * a {@code ready} another client set as a string, say. The scripts refuse to move jobs through
 * such a key rather than lose them (the forward leaves due jobs in delayed), so {@code delayq
 * check} names it; until it is deleted or renamed, nothing moves through it.
 */
final class KeyTypes {
  /** A key of the wrong type: its name, the type it holds, and the layout's. */
  record Wrong(String key, String holds, String expected) {}

  private KeyTypes() {}

  static List<Wrong> wrong(UnifiedJedis redis, Keys keys) {
    Map<String, String> expected = new LinkedHashMap<>();
    expected.put(keys.ready(), "list");
    expected.put(keys.jobs(), "hash");
    expected.put(keys.delayed(), "zset");
    expected.put(keys.delayed() + ":index", "zset");
    expected.put(keys.dead(), "zset");
    expected.put(keys.consumers(), "zset");
    expected.put(keys.running(), "hash");
    expected.put(keys.ended(), "hash");
    expected.put(keys.endedExpiry(), "zset");
    expected.put(keys.stats(), "hash");
    expected.put(keys.waiting(), "hash");
    expected.put(keys.batches(), "zset");
    List<Wrong> out = new ArrayList<>();
    expected.forEach((key, type) -> {
      String holds = redis.type(key);
      if (!holds.equals("none") && !holds.equals(type)) {
        out.add(new Wrong(key, holds, type));
      }
    });
    return out;
  }
}

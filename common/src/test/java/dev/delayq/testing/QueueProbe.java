package dev.delayq.testing;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.delayq.redis.Claimed;
import dev.delayq.redis.DelayedReads;
import dev.delayq.redis.Delivery;
import dev.delayq.redis.Enqueued;
import dev.delayq.redis.JobRecord;
import dev.delayq.redis.Keys;
import dev.delayq.redis.NewJob;
import dev.delayq.redis.RedisBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.awaitility.Awaitility;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.LPosParams;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;
import redis.clients.jedis.resps.Tuple;

/**
 * Seeds one queue through its {@link RedisBroker} and reads back every structure the invariant
 * names (delayed, jobs, ready, in-flight lists, dead) plus the wake list and consumer registry,
 * so a script test can assert the whole state after one call.
 */
public final class QueueProbe {
  public static final String TYPE = "test_job";
  public static final int MAX_ATTEMPTS = 5;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final RedisBroker broker;
  private final UnifiedJedis redis;
  private final Keys keys;

  /** A probe of {@code broker}'s queue on the shared {@link RedisFixture}, where the broker lives. */
  public QueueProbe(RedisBroker broker) {
    this(broker, RedisFixture.get().redis());
  }

  /** A probe of {@code broker}'s queue reading and planting by hand on {@code redis}, the broker's server. */
  public QueueProbe(RedisBroker broker, UnifiedJedis redis) {
    this.broker = broker;
    this.redis = redis;
    this.keys = broker.keys();
  }

  // ---- seeds -------------------------------------------------------------------------------

  /** The record head DelayQueue would build, compact, e.g. {"t":"test_job","m":5 */
  public static String head(String type, int maxAttempts) {
    return JobRecord.newHead(type, maxAttempts, false, java.util.Map.of(), "");
  }

  /** The head an older producer built, with full names: its records are written with full names. */
  public static String fullNamesHead(String type, int maxAttempts) {
    return "{\"type\":\"" + type + "\",\"maxAttempts\":" + maxAttempts;
  }

  /** A job due {@code delayMs} after Redis's now. */
  public static NewJob delayed(String id, String payload, long delayMs) {
    return new NewJob(id, head(TYPE, MAX_ATTEMPTS), payload, delayMs, false);
  }

  /** A job due at {@code dueAtMs} (epoch ms). */
  public static NewJob at(String id, String payload, long dueAtMs) {
    return new NewJob(id, head(TYPE, MAX_ATTEMPTS), payload, dueAtMs, true);
  }

  /** Enqueues a job due in {@code delayMs}; returns its due time. */
  public long seedDelayed(String id, long delayMs) {
    Enqueued e = broker.enqueue(delayed(id, "{\"n\":1}", delayMs));
    require(e.accepted() && placesOf(id).equals(List.of("delayed")), id + " did not land in delayed");
    return e.dueAt();
  }

  /** Enqueues an already-due job; it must land in ready (so nothing due may wait in delayed). */
  public void seedReady(String id) {
    seedReady(broker.enqueue(at(id, "{\"n\":1}", redisNowMs() - 1_000)).accepted(), id);
  }

  public void seedReady(NewJob job) {
    seedReady(broker.enqueue(job).accepted(), job.id());
  }

  private void seedReady(boolean accepted, String id) {
    require(accepted && placesOf(id).equals(List.of("ready")), id + " did not land in ready");
  }

  /**
   * Enqueues an already-due job and claims it for {@code consumer} (which marks it running, as a
   * consumer that starts it at once); ready must be empty before. Returns its delivery.
   */
  public Delivery seedInFlight(String consumer, String id) {
    seedReady(id);
    return claimExactly(consumer, id);
  }

  public Delivery seedInFlight(String consumer, NewJob job) {
    seedReady(job);
    return claimExactly(consumer, job.id());
  }

  private Delivery claimExactly(String consumer, String id) {
    Optional<Claimed> claimed = broker.claims().claim(consumer, 1.0, 30_000);
    require(claimed.isPresent() && claimed.get().id().equals(id), consumer + " did not claim " + id);
    return claimed.get().delivery();
  }

  /** Enqueues, claims and dead-letters a job. */
  public void seedDead(String consumer, String id, String error) {
    Delivery d = seedInFlight(consumer, id);
    require(broker.outcomes().deadLetter(consumer, d, error), id + " was not dead-lettered");
  }

  private static void require(boolean condition, String message) {
    if (!condition) {
      throw new IllegalStateException("seeding failed: " + message);
    }
  }

  // ---- reads -------------------------------------------------------------------------------

  /** The Redis server's clock, epoch milliseconds (the clock every script uses). */
  public long redisNowMs() {
    List<?> t = (List<?>) redis.sendCommand(Protocol.Command.TIME);
    long seconds = Long.parseLong(new String((byte[]) t.get(0), StandardCharsets.US_ASCII));
    long micros = Long.parseLong(new String((byte[]) t.get(1), StandardCharsets.US_ASCII));
    return seconds * 1000 + micros / 1000;
  }

  /** Blocks (polling Redis TIME) until Redis's clock is past {@code epochMs}. */
  public void awaitRedisTimePast(long epochMs) {
    Awaitility.await().atMost(Duration.ofSeconds(5)).pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(5)).until(() -> redisNowMs() > epochMs);
  }

  /** Delayed ids in due order. */
  public List<String> delayedIds() {
    return new DelayedReads(redis).range(keys, "-inf", "+inf", 0, Integer.MAX_VALUE).stream()
        .map(Tuple::getElement).toList();
  }

  /** The due time of a delayed id (found in the time wheel by its record's due time), or null. */
  public Long dueAt(String id) {
    return new DelayedReads(redis).score(keys, id);
  }

  /** Ready ids from left to right; consumers take from the right end. */
  public List<String> readyIds() {
    return redis.lrange(keys.ready(), 0, -1);
  }

  /** The ids of a consumer's deliveries, newest first (as the list holds them). */
  public List<String> inFlightIds(String consumer) {
    return inFlightElements(consumer).stream().map(Delivery::idOf).toList();
  }

  /** A consumer's in-flight list as stored: deliveries {@code <token>|<id>}, newest first. */
  public List<String> inFlightElements(String consumer) {
    return redis.lrange(keys.inFlight(consumer), 0, -1);
  }

  /** The delivery a consumer last marked running, or null. */
  public String runningMark(String consumer) {
    return redis.hget(keys.running(), consumer);
  }

  public List<String> deadIds() {
    return redis.zrange(keys.dead(), 0, -1);
  }

  public Long deadAt(String id) {
    Double score = redis.zscore(keys.dead(), id);
    return score == null ? null : score.longValue();
  }

  /** The record text exactly as stored, or null. */
  public String rawRecord(String id) {
    return redis.hget(keys.jobs(), id);
  }

  /**
   * The record as a JSON tree under the full names (type, maxAttempts, attempt, createdAt, dueAt,
   * keepId, headers as an object, payload), whichever format it is stored in: a compact record's
   * attempt is 1 when absent, and its due time is c + d.
   */
  public JsonNode record(String id) {
    String raw = rawRecord(id);
    if (raw == null) {
      throw new AssertionError("no record for " + id);
    }
    try {
      return fullNames(JSON.readTree(raw));
    } catch (JsonProcessingException e) {
      throw new AssertionError("record of " + id + " is not JSON: " + raw, e);
    }
  }

  /** A compact record's tree under the full names (see {@link #record}); any other as it is. */
  public static JsonNode fullNames(JsonNode record) {
    if (!record.has("t")) {
      return record;
    }
    ObjectNode out = JSON.createObjectNode();
    record.fields().forEachRemaining(e -> {
      JsonNode v = e.getValue();
      switch (e.getKey()) {
        case "t" -> out.set("type", v);
        case "m" -> out.set("maxAttempts", v);
        case "a" -> out.set("attempt", v);
        case "c" -> out.set("createdAt", v);
        case "d" -> out.put("dueAt", record.path("c").asLong() + v.asLong());
        case "k" -> out.put("keepId", true);
        case "h" -> {
          ObjectNode headers = out.putObject("headers");
          for (int i = 0; i + 1 < v.size(); i += 2) {
            headers.set(v.get(i).asText(), v.get(i + 1));
          }
        }
        case "p" -> out.set("payload", v);
        default -> out.set(e.getKey(), v);
      }
    });
    if (!out.has("attempt")) {
      out.put("attempt", 1);
    }
    return out;
  }

  public long recordCount() {
    return redis.hlen(keys.jobs());
  }

  public long wakeTokens() {
    return redis.llen(keys.wake());
  }

  /** A consumer's heartbeat expiry, or null when it is not registered. */
  public Long consumerExpiry(String consumer) {
    Double score = redis.zscore(keys.consumers(), consumer);
    return score == null ? null : score.longValue();
  }

  /**
   * Every place the id sits in, once per occurrence: "delayed", "ready", "inflight:<consumer>",
   * "dead", "waiting" (for other jobs). The invariant wants exactly one for a job with a record, none for one without.
   */
  public List<String> placesOf(String id) {
    List<String> places = new ArrayList<>();
    // every bucket of the wheel, not only the one its record points at: an id in two places shows
    if (delayedIds().contains(id)) {
      places.add("delayed");
    }
    for (int i = 0; i < occurrences(keys.ready(), id); i++) {
      places.add("ready");
    }
    for (String list : inFlightKeys()) {
      for (String delivery : redis.lrange(list, 0, -1)) {
        if (Delivery.idOf(delivery).equals(id)) {
          places.add(list.substring(list.lastIndexOf("}:") + 2));
        }
      }
    }
    if (redis.zscore(keys.dead(), id) != null) {
      places.add("dead");
    }
    if (redis.hexists(keys.waiting(), id)) {
      places.add("waiting");
    }
    return places;
  }

  private int occurrences(String list, String id) {
    return redis.lpos(list, id, LPosParams.lPosParams(), 0).size();
  }

  private List<String> inFlightKeys() {
    List<String> found = new ArrayList<>();
    ScanParams params = new ScanParams().match(keys.inFlightPattern()).count(1000);
    String cursor = ScanParams.SCAN_POINTER_START;
    do {
      ScanResult<String> page = redis.scan(cursor, params);
      found.addAll(page.getResult());
      cursor = page.getCursor();
    } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
    found.sort(null);
    return found;
  }
}

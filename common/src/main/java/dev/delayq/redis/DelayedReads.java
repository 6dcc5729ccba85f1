package dev.delayq.redis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.resps.Tuple;

/**
 * DelayedReads reads a shard's delayed jobs for the read side (the job browser, stats, the
 * forecast, the health check, check) through readDelayed.lua, which knows the time wheel's
 * buckets and the old delayed ZSET (docs/redis-layout.md, "The time wheel"). It changes nothing.
 */
public final class DelayedReads {
  /**
   * Buckets (at most 128 ids each) one call walks to skip an offset or to count: a ZCOUNT each,
   * well under a millisecond of Redis time a call however deep the offset or long the window.
   */
  static final int BUCKETS_A_CALL = 128;

  private final Scripts scripts;

  public DelayedReads(UnifiedJedis redis) {
    this.scripts = new Scripts(redis);
  }

  DelayedReads(Scripts scripts) {
    this.scripts = scripts;
  }

  /**
   * The jobs due in [min, max] (ZRANGEBYSCORE syntax: "-inf", "(123", "456"), earliest first. A
   * deep offset is walked first {@value #BUCKETS_A_CALL} buckets a call (a job moving meanwhile
   * shifts the page by one, as between two pages), then the page read from the bucket it lands in.
   */
  public List<Tuple> range(Keys shard, String min, String max, long offset, int count) {
    String start = "";
    while (offset > 0) {
      List<?> r = (List<?>) scripts.eval(Script.READ_DELAYED, List.of(shard.delayed()),
          List.of("skip", min, max, Long.toString(offset), start, Integer.toString(BUCKETS_A_CALL)));
      if ((Long) r.get(3) == 1) {
        break; // the old delayed ZSET still holds jobs: the range walks it by offset, as it always did
      }
      start = (String) r.get(0);
      offset = (Long) r.get(1);
      if (start.isEmpty()) {
        return List.of(); // the offset is past the window's last job
      }
      if ((Long) r.get(2) == 1) {
        break;
      }
    }
    Scripts.Call c = rangeCall(shard, min, max, offset, count);
    List<String> args = new ArrayList<>(c.args());
    args.add(start);
    return tuples(scripts.eval(Script.READ_DELAYED, c.keys(), args));
  }

  /** The call of {@link #range}, to send in a pipeline beside others; {@link #tuples} reads its reply. */
  static Scripts.Call rangeCall(Keys shard, String min, String max, long offset, int count) {
    return new Scripts.Call(List.of(shard.delayed()), List.of("range", min, max, Long.toString(offset),
        Integer.toString(count)));
  }

  /** A range call's reply: id, due time, id, due time... */
  static List<Tuple> tuples(Object reply) {
    List<?> flat = (List<?>) reply;
    List<Tuple> out = new ArrayList<>(flat.size() / 2);
    for (int i = 0; i + 1 < flat.size(); i += 2) {
      out.add(new Tuple((String) flat.get(i), Double.parseDouble((String) flat.get(i + 1))));
    }
    return out;
  }

  /** The call of {@link #score}, to send in a transaction beside other reads (the script is loaded by then). */
  public static Scripts.Call scoreCall(Keys shard, String id) {
    return new Scripts.Call(List.of(shard.delayed(), shard.jobs()), List.of("score", id));
  }

  /** The id's due time when it is delayed, else null. */
  public Long score(Keys shard, String id) {
    Scripts.Call c = scoreCall(shard, id);
    return (Long) scripts.eval(Script.READ_DELAYED, c.keys(), c.args());
  }

  /**
   * How many jobs are due in [min, max] (ZCOUNT syntax), counted {@value #BUCKETS_A_CALL} buckets a
   * call: not one instant's count when jobs move meanwhile, as no depth of a live queue is.
   */
  public long count(Keys shard, String min, String max) {
    return countFrom(shard, min, max, "");
  }

  /** The count of {@link #count} from the bucket at {@code start} on ("" from min's, with the old ZSET's). */
  long countFrom(Keys shard, String min, String max, String start) {
    long n = 0;
    do {
      Scripts.Call c = countSomeCall(shard, min, max, start);
      Counted part = counted(scripts.eval(Script.READ_DELAYED, c.keys(), c.args()));
      n += part.n();
      start = part.next();
    } while (!start.isEmpty());
    return n;
  }

  /**
   * One bounded step of {@link #count} ({@value #BUCKETS_A_CALL} buckets from {@code start}, "" for
   * the first), to send in a pipeline beside others; {@link #counted} reads its reply.
   */
  static Scripts.Call countSomeCall(Keys shard, String min, String max, String start) {
    return new Scripts.Call(List.of(shard.delayed()), List.of("countSome", min, max, start,
        Integer.toString(BUCKETS_A_CALL)));
  }

  /** What one step counted, and the bucket to go on from ("" when the window is counted). */
  record Counted(long n, String next) {}

  static Counted counted(Object reply) {
    List<?> r = (List<?>) reply;
    return new Counted((Long) r.get(0), (String) r.get(1));
  }

  /** The earliest delayed job due by {@code max} (ZCOUNT syntax), or null. */
  public Tuple first(Keys shard, String max) {
    List<Tuple> one = range(shard, "-inf", max, 0, 1);
    return one.isEmpty() ? null : one.get(0);
  }

  /**
   * How many are due in each step (fromMs + i·stepMs, fromMs + (i+1)·stepMs], i < steps, counted
   * {@value #BUCKETS_A_CALL} buckets a call (the forecast: a day of a large backlog is many
   * thousand buckets).
   */
  public List<Long> countsPerStep(Keys shard, long fromMs, long stepMs, long steps) {
    return countsPerStepOfEachShard(List.of(shard), fromMs, stepMs, steps);
  }

  /**
   * {@link #countsPerStep} of every shard of {@code keys}: shard 0's counts, then shard 1's, and so
   * on, {@code steps} each. Each round is one pipeline of a bounded call per shard still counting
   * (one round trip per master), so a shard of a few buckets is counted in the first.
   */
  public List<Long> countsPerStepOfEachShard(Keys keys, long fromMs, long stepMs, long steps) {
    return countsPerStepOfEachShard(keys.allShards(), fromMs, stepMs, steps);
  }

  private List<Long> countsPerStepOfEachShard(List<Keys> shards, long fromMs, long stepMs, long steps) {
    long[][] counts = new long[shards.size()][(int) steps];
    // where each shard's count goes on: its step (-1 when done) and the bucket in it ("" from its start)
    long[] step = new long[shards.size()];
    String[] at = new String[shards.size()];
    Arrays.fill(at, "");
    List<Integer> counting = new ArrayList<>();
    for (int i = 0; i < shards.size(); i++) {
      counting.add(i);
    }
    while (!counting.isEmpty()) {
      List<Scripts.Call> calls = new ArrayList<>(counting.size());
      for (int i : counting) {
        calls.add(countsSomeCall(shards.get(i), fromMs, stepMs, steps, step[i], at[i]));
      }
      List<Object> replies = scripts.evalPipelined(Script.READ_DELAYED, calls);
      List<Integer> goOn = new ArrayList<>();
      for (int k = 0; k < counting.size(); k++) {
        int i = counting.get(k);
        List<?> r = (List<?>) replies.get(k);
        int first = ((Long) r.get(2)).intValue();
        for (int j = 3; j < r.size(); j++) {
          counts[i][first + j - 3] += (Long) r.get(j);
        }
        step[i] = (Long) r.get(0);
        at[i] = (String) r.get(1);
        if (step[i] >= 0) {
          goOn.add(i);
        }
      }
      counting = goOn;
    }
    List<Long> out = new ArrayList<>((int) steps * shards.size());
    for (long[] shard : counts) {
      for (long n : shard) {
        out.add(n);
      }
    }
    return out;
  }

  /**
   * One bounded step of {@link #countsPerStep}: {@value #BUCKETS_A_CALL} looks (a ZCOUNT of a bucket
   * in a step's range each) from step {@code step}'s bucket {@code start} ("" from the step's
   * start). Its reply: the step and bucket to go on from (-1 when done), then the first step it
   * counted and a count for each step from there.
   */
  static Scripts.Call countsSomeCall(Keys shard, long fromMs, long stepMs, long steps, long step, String start) {
    return new Scripts.Call(List.of(shard.delayed()), List.of("countsSome", Long.toString(fromMs),
        Long.toString(stepMs), Long.toString(steps), Long.toString(step), start, Integer.toString(BUCKETS_A_CALL)));
  }

  /**
   * A piece of the wheel's ids, whole buckets: the ids, those of them in a bucket their record's
   * due time does not name (misfiled: a change by id would not find them), those whose due time
   * is out of the range of due times, with that due time as Redis wrote it (the
   * forwarder dead-letters them), and where the next piece starts ("" at the end).
   */
  public record Piece(List<String> ids, List<String> misfiled, Map<String, String> outOfRange, String next) {}

  /** The ids of the wheel's buckets after {@code after} ("" from the first), at least {@code most} while there are more. */
  public Piece scan(Keys shard, String after, int most) {
    List<?> r = (List<?>) scripts.eval(Script.READ_DELAYED, List.of(shard.delayed(), shard.jobs()),
        List.of("scan", after, Integer.toString(most)));
    int n = ((Long) r.get(1)).intValue();
    int m = ((Long) r.get(2)).intValue();
    List<String> ids = new ArrayList<>(n);
    List<String> misfiled = new ArrayList<>(m);
    Map<String, String> outOfRange = new LinkedHashMap<>();
    for (int i = 3; i < r.size(); i++) {
      if (i < 3 + n) {
        ids.add((String) r.get(i));
      } else if (i < 3 + n + m) {
        misfiled.add((String) r.get(i));
      } else {
        outOfRange.put((String) r.get(i), (String) r.get(i + 1));
        i++;
      }
    }
    return new Piece(ids, misfiled, outOfRange, (String) r.get(0));
  }
}

package dev.delayq.redis;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The producers' side of {@link RedisBroker}: enqueue.lua's calls, one job alone or many in one
 * pipeline, each job sent to its id's shard (a round trip's jobs in due order), and the answers
 * decoded back into the callers' order.
 */
final class Enqueuer {
  /** Jobs per script call in {@link #enqueueAll}: amortises the call, keeps each call short. */
  private static final int JOBS_PER_CALL = 100;

  private final Keys keys;
  private final Scripts scripts;
  /** queue.maxPayloadBytes, as enqueue.lua takes it. */
  private final String maxPayloadBytes;

  Enqueuer(Keys keys, Scripts scripts, String maxPayloadBytes) {
    this.keys = keys;
    this.scripts = scripts;
    this.maxPayloadBytes = maxPayloadBytes;
  }

  Enqueued enqueue(NewJob job) {
    List<?> r = (List<?>) scripts.eval(Script.ENQUEUE, enqueueKeys(keys.shardOf(job.id())),
        enqueueArgs(List.of(job)));
    return new Enqueued(EnqueueCode.of((Long) r.get(0)), (Long) r.get(1));
  }

  List<Enqueued> enqueueAll(List<NewJob> jobs) {
    // each shard's jobs, as positions in jobs, in the order they are sent (see inDueOrder)
    List<List<Integer>> positions = new ArrayList<>();
    for (int i = 0; i < keys.shards(); i++) {
      positions.add(new ArrayList<>());
    }
    for (int i = 0; i < jobs.size(); i++) {
      positions.get(keys.shards() == 1 ? 0 : keys.shardIndexOf(jobs.get(i).id())).add(i);
    }
    long[] order = dueOrderKeys(jobs);
    // one pipeline still: the calls of every shard go out together, each to its slot's master
    List<Scripts.Call> calls = new ArrayList<>(jobs.size() / JOBS_PER_CALL + keys.shards());
    List<Integer> callShard = new ArrayList<>();
    for (int shard = 0; shard < keys.shards(); shard++) {
      List<String> keyList = enqueueKeys(keys.shards() == 1 ? keys : keys.shard(shard));
      List<Integer> mine = positions.get(shard);
      if (order != null && mine.size() > JOBS_PER_CALL) {
        mine.sort((a, b) -> Long.compare(order[a], order[b]));
      }
      for (int from = 0; from < mine.size(); from += JOBS_PER_CALL) {
        List<NewJob> call = new ArrayList<>(JOBS_PER_CALL);
        for (int i : mine.subList(from, Math.min(mine.size(), from + JOBS_PER_CALL))) {
          call.add(jobs.get(i));
        }
        calls.add(new Scripts.Call(keyList, enqueueArgs(call)));
        callShard.add(shard);
      }
    }
    Enqueued[] out = new Enqueued[jobs.size()];
    int[] taken = new int[keys.shards()];
    List<Object> replies = scripts.evalPipelined(Script.ENQUEUE, calls);
    for (int c = 0; c < replies.size(); c++) {
      int shard = callShard.get(c);
      List<?> r = (List<?>) replies.get(c);
      for (int i = 0; i + 1 < r.size(); i += 2) {
        out[positions.get(shard).get(taken[shard]++)] = new Enqueued(EnqueueCode.of((Long) r.get(i)), (Long) r.get(i + 1));
      }
    }
    return List.of(out);
  }

  /**
   * The keys that order a round trip's jobs by due time before they are cut into script calls,
   * or null to send them in the caller's order. In the caller's order, the 100 adds of a call of
   * jobs due at random over a minute land in 100 different buckets of the time wheel, each found
   * by its own index lookup and counted and written by its own ZCARD and ZADD; in due order a
   * call's adds span a tenth of the round trip's range, so enqueue.lua reads that part of the
   * index once and adds of one bucket share their ZCARD and ZADD (Redis CPU per job 13.3 ->
   * 11.0 µs, 100,000 jobs due over 60 s in round trips of 1,000). Jobs due now (by this host's
   * clock, with a margin for the Redis clock's skew) all get the lowest key: a stable sort keeps
   * them first and in the caller's order, as they are pushed on ready. When an id comes twice the
   * caller's order decides which job stands, so such a round trip is sent as it is.
   */
  private static long[] dueOrderKeys(List<NewJob> jobs) {
    if (jobs.size() <= JOBS_PER_CALL) {
      return null;
    }
    Set<String> ids = new HashSet<>(jobs.size() * 2);
    long now = System.currentTimeMillis();
    long[] keys = new long[jobs.size()];
    for (int i = 0; i < jobs.size(); i++) {
      NewJob j = jobs.get(i);
      if (!ids.add(j.id())) {
        return null;
      }
      long due = j.absolute() ? j.when() : now + j.when();
      keys[i] = due <= now + DUE_NOW_MARGIN_MS ? Long.MIN_VALUE : due;
    }
    return keys;
  }

  /** Due times within this of the host's clock count as due now for {@link #dueOrderKeys}. */
  private static final long DUE_NOW_MARGIN_MS = 1_000;

  private static List<String> enqueueKeys(Keys keys) {
    return List.of(keys.jobs(), keys.delayed(), keys.ready(), keys.wake(), keys.stats(),
        keys.ended(), keys.endedExpiry(), keys.dead());
  }

  private List<String> enqueueArgs(List<NewJob> jobs) {
    List<String> args = new ArrayList<>(jobs.size() * 5 + 1);
    args.add(maxPayloadBytes);
    for (NewJob j : jobs) {
      args.add(j.id());
      args.add(j.recordHead());
      args.add(j.payloadJson());
      args.add(Long.toString(j.when()));
      args.add((j.absolute() ? "at" : "delay") + j.ifPending().scriptOption());
    }
    return args;
  }
}

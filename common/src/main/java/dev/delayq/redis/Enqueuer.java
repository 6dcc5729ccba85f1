package dev.delayq.redis;

import java.util.ArrayList;
import java.util.List;

/**
 * The producers' side of {@link RedisBroker}: enqueue.lua's calls, one job alone or many in one
 * pipeline, each job sent to its id's shard, and the answers decoded back into the callers' order.
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
    if (keys.shards() == 1) {
      return enqueueInOrder(keys, jobs);
    }
    // one pipeline still: the calls of every shard go out together, each to its slot's master
    List<List<Integer>> positions = new ArrayList<>();
    List<List<NewJob>> byShard = new ArrayList<>();
    for (int i = 0; i < keys.shards(); i++) {
      positions.add(new ArrayList<>());
      byShard.add(new ArrayList<>());
    }
    for (int i = 0; i < jobs.size(); i++) {
      int shard = keys.shardIndexOf(jobs.get(i).id());
      positions.get(shard).add(i);
      byShard.get(shard).add(jobs.get(i));
    }
    List<Scripts.Call> calls = new ArrayList<>();
    List<Integer> callShard = new ArrayList<>();
    for (int shard = 0; shard < keys.shards(); shard++) {
      List<String> keyList = enqueueKeys(keys.shard(shard));
      List<NewJob> mine = byShard.get(shard);
      for (int from = 0; from < mine.size(); from += JOBS_PER_CALL) {
        calls.add(new Scripts.Call(keyList, enqueueArgs(mine.subList(from, Math.min(mine.size(), from + JOBS_PER_CALL)))));
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

  private List<Enqueued> enqueueInOrder(Keys shard, List<NewJob> jobs) {
    List<String> keyList = enqueueKeys(shard);
    List<Scripts.Call> calls = new ArrayList<>(jobs.size() / JOBS_PER_CALL + 1);
    for (int from = 0; from < jobs.size(); from += JOBS_PER_CALL) {
      calls.add(new Scripts.Call(keyList,
          enqueueArgs(jobs.subList(from, Math.min(jobs.size(), from + JOBS_PER_CALL)))));
    }
    List<Enqueued> out = new ArrayList<>(jobs.size());
    for (Object reply : scripts.evalPipelined(Script.ENQUEUE, calls)) {
      List<?> r = (List<?>) reply;
      for (int i = 0; i + 1 < r.size(); i += 2) {
        out.add(new Enqueued(EnqueueCode.of((Long) r.get(i)), (Long) r.get(i + 1)));
      }
    }
    return out;
  }

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

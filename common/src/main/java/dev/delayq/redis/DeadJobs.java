package dev.delayq.redis;

import java.util.ArrayList;
import java.util.List;

/**
 * The operator's script calls on dead jobs and orphans (retryDead.lua, purgeDead.lua,
 * requeueOrphan.lua), one bounded call each; {@link RedisBroker} is their door.
 */
final class DeadJobs {
  private final Scripts scripts;

  DeadJobs(Scripts scripts) {
    this.scripts = scripts;
  }

  List<DeadRetry> retry(Keys shard, List<String> ids) {
    List<String> args = new ArrayList<>(ids.size() + 2);
    args.add("--"); // a workflow's job retried is pending again in its batch
    args.add(shard.flowBase());
    args.addAll(ids);
    List<?> r = (List<?>) scripts.eval(Script.RETRY_DEAD, List.of(shard.dead(), shard.jobs(), shard.ready()), args);
    List<DeadRetry> out = new ArrayList<>(r.size());
    for (Object code : r) {
      out.add(DeadRetry.of((Long) code));
    }
    return out;
  }

  int purge(Keys shard, String age, int most, String idRetentionMs) {
    long n = (Long) scripts.eval(Script.PURGE_DEAD,
        List.of(shard.dead(), shard.jobs(), shard.ended(), shard.endedExpiry()),
        List.of(age, Integer.toString(most), idRetentionMs, shard.flowBase(), Workflows.keepMs(idRetentionMs)));
    return (int) n;
  }

  OrphanRequeue requeueOrphan(Keys shard, String id, List<String> inFlightLists, String reason) {
    List<String> keyList = new ArrayList<>(List.of(shard.jobs(), shard.delayed(), shard.ready(), shard.dead(),
        shard.waiting()));
    keyList.addAll(inFlightLists);
    return OrphanRequeue.of((Long) scripts.eval(Script.REQUEUE_ORPHAN, keyList, List.of(id, reason)));
  }
}

package dev.delayq.redis;

import dev.delayq.redis.InvariantCheck.Breach;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * The workflow part of one shard's check (include/workflow.lua names the keys): the jobs in
 * {@code waiting} (a place, like ready), a waiting job nobody will release, and the batches
 * whose count went wrong. Read as the rest of the check is, in bounded steps: {@code waiting}
 * by HSCAN, each job's wait set and each batch's pending set by SSCAN, a page of waiting jobs'
 * first steps in one pipeline; the ids are looked up in what the check has already walked
 * ({@link Known}), and none is held beyond a page.
 */
final class WorkflowCheck {
  /** The dependencies a breach names; a fan-in may wait for thousands. */
  static final int DEPENDENCIES_NAMED = 5;

  private final UnifiedJedis redis;
  private final ScanParams scan = new ScanParams().count(InvariantCheck.SCAN_COUNT);

  WorkflowCheck(UnifiedJedis redis) {
    this.redis = redis;
  }

  /**
   * What the check walked of a shard, looked up by id: whether the id has a record, in how many
   * places it is, whether one of them is dead.
   */
  interface Known {
    boolean hasRecord(String id);

    int places(String id);

    boolean dead(String id);
  }

  /**
   * Each job waiting for others in the shard, with its policy for a dependency that did not end
   * done, an HSCAN step at a time (HSCAN may hand an id out twice).
   */
  void eachWaiting(Keys keys, BiConsumer<String, String> visit) {
    String cursor = ScanParams.SCAN_POINTER_START;
    do {
      ScanResult<Map.Entry<String, String>> step = redis.hscan(keys.waiting(), cursor, scan);
      for (Map.Entry<String, String> e : step.getResult()) {
        // '<policy>:<delay ms>:<since ms>'
        int colon = e.getValue().indexOf(':');
        visit.accept(e.getKey(), colon < 0 ? e.getValue() : e.getValue().substring(0, colon));
      }
      cursor = step.getCursor();
    } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
  }

  /**
   * WAITING_RELEASABLE: a waiting job (with its record, in no other place) that waits for nothing,
   * or whose every dependency has ended: it has no record, or is dead and the policy is not
   * "wait". One pending dependency settles it, so a job waiting as it should costs one SSCAN
   * step, sent with its page's others in one pipeline.
   */
  List<Breach> releasable(Keys keys, Known known) {
    List<Breach> out = new ArrayList<>();
    List<String> page = new ArrayList<>(InvariantCheck.SCAN_COUNT);
    List<String> policies = new ArrayList<>(InvariantCheck.SCAN_COUNT);
    eachWaiting(keys, (id, policy) -> {
      if (known.hasRecord(id) && known.places(id) == 1) {
        page.add(id);
        policies.add(policy);
      }
      if (page.size() == InvariantCheck.SCAN_COUNT) {
        releasable(keys, page, policies, known, out);
        page.clear();
        policies.clear();
      }
    });
    releasable(keys, page, policies, known, out);
    return out;
  }

  private void releasable(Keys keys, List<String> page, List<String> policies, Known known, List<Breach> out) {
    if (page.isEmpty()) {
      return;
    }
    List<Response<ScanResult<String>>> first = new ArrayList<>(page.size());
    try (AbstractPipeline p = Pipelines.open(redis)) {
      for (String id : page) {
        first.add(p.sscan(keys.waitFor(id), ScanParams.SCAN_POINTER_START, scan));
      }
      p.sync();
    }
    for (int i = 0; i < page.size(); i++) {
      String id = page.get(i);
      boolean holds = "wait".equals(policies.get(i));
      List<String> ended = new ArrayList<>();
      long more = 0;
      ScanResult<String> step = Pipelines.reply(first.get(i), "SSCAN of a wait set");
      boolean allEnded = true;
      while (allEnded) {
        for (String dep : step.getResult()) {
          if (!hasEnded(dep, holds, known)) {
            allEnded = false;
            break;
          }
          if (ended.size() < DEPENDENCIES_NAMED) {
            ended.add(dep);
          } else {
            more++;
          }
        }
        if (!allEnded || step.getCursor().equals(ScanParams.SCAN_POINTER_START)) {
          break;
        }
        step = redis.sscan(keys.waitFor(id), step.getCursor(), scan);
      }
      if (allEnded) {
        if (more > 0) {
          ended.add("and " + more + " more");
        }
        out.add(new Breach(id, Breach.Kind.WAITING_RELEASABLE, ended));
      }
    }
  }

  /** Ended: no record, or dead when the waiting job does not hold for an operator on a dead one. */
  private static boolean hasEnded(String dep, boolean holds, Known known) {
    return !known.hasRecord(dep) || (!holds && known.dead(dep));
  }

  /**
   * BATCH_NOT_FIRED (a closed batch with no job pending, still in batches: its callback never
   * fired) and BATCH_MEMBER_LOST (a pending member without a record: it ended uncounted, and
   * its batch would never finish). The batches are read a range at a time, with their states
   * and pending counts in one pipeline per range.
   */
  List<Breach> batches(Keys keys, Known known) {
    List<Breach> out = new ArrayList<>();
    for (long from = 0; ; from += InvariantCheck.CHUNK) {
      List<String> ids = redis.zrange(keys.batches(), from, from + InvariantCheck.CHUNK - 1);
      List<Response<String>> states = new ArrayList<>(ids.size());
      List<Response<Long>> pending = new ArrayList<>(ids.size());
      try (AbstractPipeline p = Pipelines.open(redis)) {
        for (String id : ids) {
          states.add(p.hget(keys.batch(id), "state"));
          pending.add(p.scard(keys.batchPending(id)));
        }
        p.sync();
      }
      for (int i = 0; i < ids.size(); i++) {
        String id = ids.get(i);
        long left = Pipelines.reply(pending.get(i), "SCARD of a batch's pending set");
        if ("closed".equals(Pipelines.reply(states.get(i), "HGET of a batch's state")) && left == 0) {
          out.add(new Breach(id, Breach.Kind.BATCH_NOT_FIRED, List.of()));
        }
        if (left > 0) {
          lostMembers(keys, id, known, out);
        }
      }
      if (ids.size() < InvariantCheck.CHUNK) {
        return out;
      }
    }
  }

  private void lostMembers(Keys keys, String batchId, Known known, List<Breach> out) {
    String cursor = ScanParams.SCAN_POINTER_START;
    do {
      ScanResult<String> step = redis.sscan(keys.batchPending(batchId), cursor, scan);
      for (String id : step.getResult()) {
        if (!known.hasRecord(id)) {
          out.add(new Breach(id, Breach.Kind.BATCH_MEMBER_LOST, List.of(batchId)));
        }
      }
      cursor = step.getCursor();
    } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
  }
}

package dev.delayq.redis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.IntPredicate;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.args.ListDirection;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The claims of ready jobs: claimReady.lua without waiting, over the shards of a sharded queue
 * (the scan that finds which shard has due jobs), and BLMOVE then claim.lua after a wait, with
 * the decoding of what a claim answered into deliveries and records.
 */
public final class Claimer {
  private final UnifiedJedis redis;
  private final Keys keys;
  private final Scripts scripts;
  private final Acknowledger acks;
  /** queue.idRetention in ms, as the scripts take it. */
  private final String idRetentionMs;
  /** worker.claimMaxBytes, as the claim scripts take it. */
  private final String claimMaxBytes;
  /** The longest record a claim reads, as the claim scripts take it. */
  private final String recordMaxBytes;
  /** queue.limits as include/flow.lua reads them, '' for none. */
  private final String limitsSpec;

  /**
   * Each shard's ready key, which {@link #shardHangs} asks the node lanes about, built once: a
   * consumer asks for every shard at every claim. Null when no shard can hang apart (one shard, or
   * one server: no lanes).
   */
  private final String[] readyKeysOnLanes;

  Claimer(UnifiedJedis redis, Keys keys, Scripts scripts, Acknowledger acks, String idRetentionMs,
      String claimMaxBytes, String recordMaxBytes, String limitsSpec) {
    this.redis = redis;
    this.keys = keys;
    this.scripts = scripts;
    this.acks = acks;
    this.idRetentionMs = idRetentionMs;
    this.claimMaxBytes = claimMaxBytes;
    this.recordMaxBytes = recordMaxBytes;
    this.limitsSpec = limitsSpec;
    this.readyKeysOnLanes = keys.shards() > 1 && scripts.fanOut().readsApart() ? readyKeys(keys) : null;
  }

  private static String[] readyKeys(Keys keys) {
    String[] ready = new String[keys.shards()];
    for (int i = 0; i < ready.length; i++) {
      ready[i] = keys.shard(i).ready();
    }
    return ready;
  }

  /**
   * Acknowledges {@code ackFirst} (null for none), then takes up to {@code most} due jobs at once
   * without blocking (a fair share: no more than ready's length over the registered consumers),
   * each a new delivery; the first is marked running. No jobs when nothing is ready. A
   * {@link ReplicaAcksException} (redis.replicaAcks not met) means the claim may not survive a
   * failover: the caller must run none of it and give its list back ({@link #releaseClaimed}).
   */
  public Batch claimReady(String consumerId, long heartbeatTtlMs, int most, Delivery ackFirst) {
    return claimReady(consumerId, heartbeatTtlMs, most, ackFirst, 0);
  }

  /**
   * As {@link #claimReady(String, long, int, Delivery)} over the shards, shard {@code fromShard}
   * first, then, when it has none, the one of the others with the most due jobs: the batch comes
   * from that one shard ({@link Batch#shard()}). The acknowledgement rides on the call to its own shard, or
   * goes alone when no call reached that shard. Callers rotate {@code fromShard} past the shard
   * that served them, so a busy shard does not starve the others.
   */
  public Batch claimReady(String consumerId, long heartbeatTtlMs, int most, Delivery ackFirst, int fromShard) {
    return claimReady(consumerId, heartbeatTtlMs, most, ackFirst, fromShard, keys.shards());
  }

  /**
   * As {@link #claimReady(String, long, int, Delivery, int)}, trying {@code shards} shards at most.
   * The claim on the first shard goes in one round trip with the length of every other shard's
   * ready list; when the first had no due jobs, the claim goes on to the others that had some, the
   * longest backlog first, and to no empty one: a scan that finds nothing costs one round trip, as
   * on one shard, however many shards there are.
   */
  public Batch claimReady(String consumerId, long heartbeatTtlMs, int most, Delivery ackFirst, int fromShard,
      int shards) {
    return claimReady(consumerId, heartbeatTtlMs, most, ackFirst, fromShard, shards, shard -> true, 1);
  }

  /**
   * As {@link #claimReady(String, long, int, Delivery, int, int)}, looking only at the other
   * shards that {@code usable} accepts (a worker leaves out those its calls fail on), and taking at
   * least {@code atLeast} of what waits (up to {@code most}) whatever the fair share: the consumer
   * runs that many in turn sooner than another consumer would be woken for them (the worker's
   * ClaimPace; 1 for the fair share alone). A call that fails throws {@link ShardFailed} naming its
   * shard.
   */
  public Batch claimReady(String consumerId, long heartbeatTtlMs, int most, Delivery ackFirst, int fromShard,
      int shards, IntPredicate usable, int atLeast) {
    int k = keys.shards();
    if (k == 1) {
      return claimReadyOn(keys, consumerId, heartbeatTtlMs, most, atLeast, ackFirst);
    }
    int tries = Math.max(1, Math.min(k, shards));
    int first = Math.floorMod(fromShard, k);
    int ackShard = ackFirst == null ? -1 : keys.shardIndexOf(ackFirst.id());
    boolean folds = first == ackShard;
    Batch b;
    List<Response<Long>> lengths = List.of();
    List<Long> lengthsApart = null;
    try {
      if (tries == 1) {
        // one shard to try (a consumer sent there by its worker's watch): no pipeline to open
        b = claimReadyOn(keys.shard(first), consumerId, heartbeatTtlMs, most, atLeast, folds ? ackFirst : null);
      } else if (scripts.fanOut().readsApart()) {
        // on a cluster: the claim alone, and only when it found nothing the other shards' lengths,
        // each on its own node's thread; a node that hangs costs this scan at most the lanes'
        // short wait, once, and its shards are not tried (one pipeline over every node waited for
        // a hung one until redis.socketTimeout, so every consumer whose scan read its length
        // beside stood still, whatever shard it claimed from). Not sent beside every claim: a
        // lane reads one consumer's lengths at a time, and under 5,000 jobs/s on three masters
        // consumers queued there doubled the sustained lateness (p50 7 -> 15 ms, p99 88 -> 166,
        // bench/scripts/shards-precision.sh, interleaved), while a claim that finds a job needs none
        b = claimReadyOn(keys.shard(first), consumerId, heartbeatTtlMs, most, atLeast, folds ? ackFirst : null);
        if (b.empty()) {
          lengthsApart = LengthsApart.send(this, first, tries, usable).await();
        }
      } else {
        Scripts.Beside<List<Response<Long>>> firstCall = scripts.evalBeside(Script.CLAIM_READY,
            claimReadyCall(keys.shard(first), consumerId, heartbeatTtlMs, most, atLeast, folds ? ackFirst : null), p -> {
              List<Response<Long>> read = new ArrayList<>(tries - 1);
              for (int j = 1; j < tries; j++) {
                int shard = Math.floorMod(first + j, k);
                read.add(usable.test(shard) ? lengthBeside(p, keys.shard(shard).ready()) : null);
              }
              return read;
            });
        b = claimReadyReply(firstCall.replies().get(0), first);
        lengths = firstCall.beside();
      }
    } catch (JedisException e) {
      throw new ShardFailed(first, Ack.NONE, e);
    }
    Ack ack = folds ? b.ack() : Ack.NONE;
    if (folds) {
      ackShard = -1;
    }
    // the others that had due jobs, the longest backlog first (in rotation order when even)
    List<long[]> waiting = new ArrayList<>();
    for (int j = 1; b.empty() && j < tries; j++) {
      long length;
      if (lengthsApart != null) {
        length = lengthsApart.get(j - 1);
      } else {
        Response<Long> read = lengths.get(j - 1);
        length = read == null ? 0 : lengthOf(read);
      }
      if (length > 0) {
        waiting.add(new long[] {Math.floorMod(first + j, k), length});
      }
    }
    waiting.sort((x, y) -> Long.compare(y[1], x[1]));
    for (int w = 0; b.empty() && w < waiting.size(); w++) {
      int shard = (int) waiting.get(w)[0];
      folds = shard == ackShard;
      try {
        b = claimReadyOn(keys.shard(shard), consumerId, heartbeatTtlMs, most, atLeast, folds ? ackFirst : null);
      } catch (JedisException e) {
        throw new ShardFailed(shard, ack, e);
      }
      if (folds) {
        ack = b.ack();
        ackShard = -1;
      }
    }
    if (ackShard >= 0) {
      try {
        ack = acks.ackAlone(consumerId, ackFirst);
      } catch (JedisException e) {
        throw new ShardFailed(ackShard, ack, e); // the batch claimed is in the list, given back as unsure
      }
    }
    return b.empty() ? new Batch(ack, List.of(), List.of(), first, 0) : new Batch(ack, b.jobs(), b.dropped(), b.shard(), b.left());
  }

  /**
   * Whether the Redis Cluster master of {@code shard} hangs: it has not answered a call sent to it
   * for longer than the per-shard calls wait (see {@link NodeFanOut#evalEachApart}); a claim there
   * would wait for it too. Costs no call; false off a cluster.
   */
  public boolean shardHangs(int shard) {
    return readyKeysOnLanes != null && scripts.fanOut().nodeHangs(readyKeysOnLanes[shard]);
  }

  /**
   * The ready lists' lengths of the {@code tries - 1} shards after {@code first}, read node by node
   * on the lanes ({@link NodeFanOut#lengthsApart}) once the claim on {@code first} found nothing; a
   * shard that {@code usable} refuses is not read, and counts as empty.
   */
  private record LengthsApart(int count, List<Integer> at, NodeLanes.Pending<Long> pending) {
    static LengthsApart send(Claimer claimer, int first, int tries, IntPredicate usable) {
      int k = claimer.keys.shards();
      List<String> lists = new ArrayList<>(tries - 1);
      List<Integer> at = new ArrayList<>(tries - 1);
      for (int j = 1; j < tries; j++) {
        int shard = Math.floorMod(first + j, k);
        if (usable.test(shard)) {
          lists.add(claimer.keys.shard(shard).ready());
          at.add(j - 1);
        }
      }
      return new LengthsApart(tries - 1, at, lists.isEmpty() ? null : claimer.scripts.fanOut().lengthsApart(lists));
    }

    /** The lengths in shard order after {@code first}; 0 for a shard not read or whose node hangs. */
    List<Long> await() {
      Long[] read = new Long[count];
      Arrays.fill(read, 0L);
      if (pending != null) {
        List<Long> got = pending.await();
        for (int i = 0; i < at.size(); i++) {
          read[at.get(i)] = got.get(i);
        }
      }
      return Arrays.asList(read);
    }
  }

  /**
   * A ready list's length queued beside a claim; null when its node cannot even be reached to
   * queue it (a cluster pipeline connects to a node as it queues its first command), so that the
   * claim on the other shard still goes. The claim then tries that list, and its own call says.
   */
  private static Response<Long> lengthBeside(AbstractPipeline p, String ready) {
    try {
      return p.llen(ready);
    } catch (JedisConnectionException e) {
      return UNREAD_LENGTH;
    }
  }

  /** Stands for a length that could not be queued: read as 1, so that the list is tried. */
  private static final Response<Long> UNREAD_LENGTH = new Response<>(null);

  /** A ready list's length read beside a claim; 1 when it could not be read, so that it is tried. */
  private static long lengthOf(Response<Long> length) {
    try {
      return Pipelines.reply(length, "LLEN of a ready list");
    } catch (JedisDataException e) {
      return 1; // a redirect or a moving slot: the claim itself follows it
    } catch (JedisConnectionException e) {
      return 1; // no reply: its node's connection failed (a cluster failover); the claim there tells
    }
  }

  private Batch claimReadyOn(Keys keys, String consumerId, long heartbeatTtlMs, int most, int atLeast,
      Delivery ackFirst) {
    Scripts.Call call = claimReadyCall(keys, consumerId, heartbeatTtlMs, most, atLeast, ackFirst);
    return claimReadyReply(scripts.eval(Script.CLAIM_READY, call.keys(), call.args()), keys.shard());
  }

  private Scripts.Call claimReadyCall(Keys keys, String consumerId, long heartbeatTtlMs, int most, int atLeast,
      Delivery ackFirst) {
    List<String> args = new ArrayList<>(13);
    args.add(consumerId);
    args.add(Long.toString(heartbeatTtlMs));
    args.add(Integer.toString(most));
    Acknowledger.addAck(args, ackFirst);
    args.addAll(List.of(idRetentionMs, claimMaxBytes, recordMaxBytes, keys.flowBase(), limitsSpec,
        Integer.toString(this.keys.shards()), Integer.toString(Math.max(1, atLeast))));
    return new Scripts.Call(
        List.of(keys.ready(), keys.inFlight(consumerId), keys.jobs(), keys.consumers(),
            keys.running(), keys.deliveries(), keys.ended(), keys.endedExpiry(),
            keys.paused(), keys.heldIndex(), keys.delayed(), keys.wake()),
        args);
  }

  private static Batch claimReadyReply(Object reply, int shard) {
    List<?> r = (List<?>) reply;
    Claims c = claimsOf(r, 2);
    return new Batch(Ack.of(r.get(0)), c.jobs(), c.dropped(), shard, (Long) r.get(1));
  }

  /** The jobs a claim script answered, in claim order, and the ids it dropped for having no record. */
  private record Claims(List<Claimed> jobs, List<String> dropped) {}

  /**
   * Reads a claim script's answer (claimReady, claim): from {@code at}, the first delivery's token,
   * then per claimed id, in claim order and with the next token each, the id and its record, or
   * its length (a number) when too long to read, or false (null here) when it had none.
   */
  private static Claims claimsOf(List<?> r, int at) {
    long token = (Long) r.get(at);
    List<Claimed> jobs = new ArrayList<>((r.size() - at) / 2);
    List<String> dropped = List.of();
    for (int i = at + 1; i + 1 < r.size(); i += 2, token++) {
      String id = (String) r.get(i);
      Object answer = r.get(i + 1);
      if (answer instanceof String raw) {
        jobs.add(new Claimed(new Delivery(token, id).withRecord(raw), raw));
      } else if (answer instanceof Long length) {
        jobs.add(new Claimed(new Delivery(token, id), null, length));
      } else {
        dropped = dropped.isEmpty() ? new ArrayList<>() : dropped;
        dropped.add(id);
      }
    }
    return new Claims(jobs, dropped);
  }

  /**
   * Waits up to {@code timeoutSeconds} for a due job and moves it atomically into the
   * consumer's in-flight list (BLMOVE), then makes it a delivery marked running, reads its record
   * and re-registers the consumer. Empty on timeout, when the id was taken back in between, or when flow control held or deferred it;
   * a Claimed without record when the id had none (it is dropped). A {@link ReplicaAcksException}
   * means, as for {@link #claimReady}, that the claim must not run and is to be given back.
   */
  public Optional<Claimed> claim(String consumerId, double timeoutSeconds, long heartbeatTtlMs) {
    return claim(consumerId, timeoutSeconds, heartbeatTtlMs, 0);
  }

  /** As {@link #claim(String, double, long)}, waiting on the ready list of one shard. */
  public Optional<Claimed> claim(String consumerId, double timeoutSeconds, long heartbeatTtlMs, int shard) {
    Woken w = claimWoken(consumerId, timeoutSeconds, heartbeatTtlMs, shard, 1);
    if (!w.dropped().isEmpty()) {
      return Optional.of(new Claimed(new Delivery(0, w.dropped().get(0)), null));
    }
    return w.jobs().isEmpty() ? Optional.empty() : Optional.of(w.jobs().get(0));
  }

  /**
   * As {@link #claim(String, double, long, int)}, and with nothing limited or paused the same call
   * takes the rest of a fair share of what still waits in ready, up to {@code most} jobs in all
   * (claim.lua), so a consumer woken into a backlog takes a batch at once. On a queue of several
   * shards a call that fails throws {@link ShardFailed} naming {@code shard}.
   */
  public Woken claimWoken(String consumerId, double timeoutSeconds, long heartbeatTtlMs, int shard, int most) {
    return claimWoken(consumerId, timeoutSeconds, heartbeatTtlMs, shard, most, 1);
  }

  /** As {@link #claimWoken(String, double, long, int, int)}, taking at least {@code atLeast} in all (see claimReady's). */
  public Woken claimWoken(String consumerId, double timeoutSeconds, long heartbeatTtlMs, int shard, int most,
      int atLeast) {
    try {
      return claimWokenIn(consumerId, timeoutSeconds, heartbeatTtlMs, shard, most, atLeast);
    } catch (JedisException e) {
      if (this.keys.shards() == 1) {
        throw e;
      }
      // one shard's failure, as a claim's: the worker holds that shard back and serves the others
      throw new ShardFailed(shard, Ack.NONE, e);
    }
  }

  private Woken claimWokenIn(String consumerId, double timeoutSeconds, long heartbeatTtlMs, int shard, int most,
      int atLeast) {
    Keys keys = this.keys.shard(shard);
    String id = redis.blmove(keys.ready(), keys.inFlight(consumerId), ListDirection.RIGHT,
        ListDirection.LEFT, timeoutSeconds);
    if (id == null) {
      return new Woken(List.of(), List.of(), 0); // ready stayed empty the whole wait
    }
    List<?> r = (List<?>) scripts.eval(Script.CLAIM,
        List.of(keys.jobs(), keys.inFlight(consumerId), keys.consumers(), keys.running(), keys.deliveries(),
            keys.ready(), keys.paused(), keys.heldIndex(), keys.delayed(), keys.wake()),
        List.of(id, consumerId, Long.toString(heartbeatTtlMs), recordMaxBytes, keys.flowBase(), limitsSpec,
            Integer.toString(Math.max(1, most)), claimMaxBytes, Integer.toString(this.keys.shards()),
            Integer.toString(Math.max(1, atLeast))));
    long code = (Long) r.get(0);
    if (code == 0 || code == -2) {
      return Woken.NONE;
    }
    if (code < 0) {
      return new Woken(List.of(), List.of(id), -1);
    }
    Claims c = claimsOf(r, 2);
    return new Woken(c.jobs(), c.dropped(), (Long) r.get(1));
  }

  /**
   * Waits up to {@code timeoutSeconds} until the ready list of {@code shard} holds a job, without
   * taking one: BLMOVE from the list's left to its left puts its first element back where it was,
   * in one command, so the list and its order stay as they were. True when it held one. It tells
   * a worker's idle consumers which shard to claim from when it has fewer consumers than shards.
   */
  public boolean awaitReady(int shard, double timeoutSeconds) {
    String ready = keys.shard(shard).ready();
    return redis.blmove(ready, ready, ListDirection.LEFT, ListDirection.LEFT, timeoutSeconds) != null;
  }
}

package dev.delayq.redis;

import java.util.ArrayList;
import java.util.List;

/**
 * The start of a claimed delivery (start.lua): the check that it is still its consumer's and its
 * running mark, for several consumers in one call per shard, each folding in the acknowledgement
 * of its consumer's previous delivery when that one is of the same shard (else acknowledged alone).
 */
public final class Starter {
  private final Keys keys;
  private final Scripts scripts;
  private final Acknowledger acks;
  /** queue.idRetention in ms, as the scripts take it. */
  private final String idRetentionMs;

  Starter(Keys keys, Scripts scripts, Acknowledger acks, String idRetentionMs) {
    this.keys = keys;
    this.scripts = scripts;
    this.acks = acks;
    this.idRetentionMs = idRetentionMs;
  }

  /**
   * Acknowledges {@code ackFirst} (null for none), then confirms that {@code delivery} is still
   * this consumer's and marks it running. Not started: it was taken back, and must not run.
   */
  public Started start(String consumerId, Delivery delivery, Delivery ackFirst) {
    return startAll(List.of(new Start(consumerId, delivery, ackFirst))).get(0);
  }

  /** The starts of several consumers in one script call; the answers in the same order. */
  public List<Started> startAll(List<Start> starts) {
    if (keys.shards() == 1) {
      return startAllOn(keys, starts);
    }
    // each start goes to its delivery's shard; an acknowledgement of another shard goes alone
    Started[] out = new Started[starts.size()];
    List<List<Integer>> at = new ArrayList<>();
    List<List<Start>> byShard = new ArrayList<>();
    for (int i = 0; i < keys.shards(); i++) {
      at.add(new ArrayList<>());
      byShard.add(new ArrayList<>());
    }
    List<Integer> ackedAlone = new ArrayList<>();
    for (int i = 0; i < starts.size(); i++) {
      Start s = starts.get(i);
      int shard = keys.shardIndexOf(s.delivery().id());
      boolean alone = s.ackFirst() != null && keys.shardIndexOf(s.ackFirst().id()) != shard;
      if (alone) {
        ackedAlone.add(i);
      }
      at.get(shard).add(i);
      byShard.get(shard).add(alone ? new Start(s.consumerId(), s.delivery(), null) : s);
    }
    Ack[] aloneAcks = new Ack[starts.size()];
    for (int i : ackedAlone) {
      aloneAcks[i] = acks.ackAlone(starts.get(i).consumerId(), starts.get(i).ackFirst());
    }
    for (int shard = 0; shard < keys.shards(); shard++) {
      if (byShard.get(shard).isEmpty()) {
        continue;
      }
      List<Started> r = startAllOn(keys.shard(shard), byShard.get(shard));
      for (int j = 0; j < r.size(); j++) {
        int i = at.get(shard).get(j);
        out[i] = aloneAcks[i] == null ? r.get(j) : new Started(aloneAcks[i], r.get(j).started());
      }
    }
    return List.of(out);
  }

  private List<Started> startAllOn(Keys keys, List<Start> starts) {
    List<String> keyList = new ArrayList<>(starts.size() + 4);
    List<String> args = new ArrayList<>(starts.size() * 5 + 1);
    keyList.add(keys.jobs());
    keyList.add(keys.running());
    keyList.add(keys.ended());
    keyList.add(keys.endedExpiry());
    args.add(idRetentionMs);
    for (Start s : starts) {
      keyList.add(keys.inFlight(s.consumerId()));
      args.add(s.consumerId());
      args.add(s.delivery().element());
      Acknowledger.addAck(args, s.ackFirst());
    }
    List<?> r = (List<?>) scripts.eval(Script.START, keyList, args);
    List<Started> out = new ArrayList<>(starts.size());
    for (int i = 0; i + 1 < r.size(); i += 2) {
      out.add(new Started(Ack.of(r.get(i)), (Long) r.get(i + 1) == 1L));
    }
    return out;
  }
}

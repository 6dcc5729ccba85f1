package dev.delayq.redis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * The acknowledgements of finished deliveries: ack.lua's calls for several consumers at once, one
 * per shard their deliveries touch (each delivery goes to its id's shard) and their answers put
 * back in the reports' order, and releaseClaimed.lua, which gives back what a consumer claimed
 * and never started. An acknowledgement folded into a claim or a start is written by {@link #addAck}.
 */
public final class Acknowledger {
  private final Keys keys;
  private final Scripts scripts;
  /** queue.idRetention in ms, as the scripts take it. */
  private final String idRetentionMs;

  Acknowledger(Keys keys, Scripts scripts, String idRetentionMs) {
    this.keys = keys;
    this.scripts = scripts;
    this.idRetentionMs = idRetentionMs;
  }

  /** Acknowledges one delivery alone (its shard had no call to fold it into). */
  Ack ackAlone(String consumerId, Delivery delivery) {
    return ackAllAnswers(List.of(new Report(consumerId, null, List.of(delivery)))).get(0)[0];
  }

  /**
   * Acknowledges finished deliveries and marks started ones, for several consumers in one script
   * call; returns, per report, false where a delivery was fenced (no longer that consumer's).
   */
  public List<boolean[]> ackAll(List<Report> reports) {
    List<boolean[]> out = new ArrayList<>(reports.size());
    for (Ack[] answers : ackAllAnswers(reports)) {
      boolean[] acked = new boolean[answers.length];
      for (int i = 0; i < acked.length; i++) {
        acked[i] = answers[i] == Ack.ACKED;
      }
      out.add(acked);
    }
    return out;
  }

  /**
   * As {@link #ackAll}, with each delivery's answer: ACKED, FENCED or ENDED. A
   * {@link ReplicaAcksException} (redis.replicaAcks not met) means the calls ran but may not
   * survive a failover: the caller sends the same reports again, and {@link #unconfirmedAcks}
   * says what this try answered.
   */
  public List<Ack[]> ackAllAnswers(List<Report> reports) {
    AckCalls calls = ackCalls(reports);
    if (calls.calls().size() == 1) { // one shard: a plain call, no pipeline of one
      Scripts.Call call = calls.calls().get(0);
      return calls.answers(Collections.singletonList(scripts.eval(Script.ACK, call.keys(), call.args())));
    }
    // the shards' calls in one pipeline: one round trip, each call to its slot's master
    return calls.answers(scripts.evalPipelined(Script.ACK, calls.calls()));
  }

  /**
   * What {@code e}, thrown by {@link #ackAllAnswers} (or {@link #ackAll}) of {@code reports}, says
   * each acknowledgement answered on the master although its replicas did not confirm it; null
   * when {@code e} is no such failure.
   */
  public List<Ack[]> unconfirmedAcks(List<Report> reports, Throwable e) {
    if (!(e instanceof ReplicaAcksException r) || r.script() != Script.ACK || r.replies().contains(null)) {
      return null;
    }
    AckCalls calls = ackCalls(reports);
    return r.replies().size() == calls.calls().size() ? calls.answers(r.replies()) : null;
  }

  /**
   * The ack.lua calls of some reports: one per shard they touch, each with that shard's part of
   * each report ({@code parts}), and where each delivery of a part came from in the reports
   * ({@code froms}: the report's index, then its positions; null on a queue of one shard, whose
   * one call holds the reports as they are).
   */
  private record AckCalls(List<Report> reports, List<Scripts.Call> calls, List<List<Report>> parts,
      List<List<int[]>> froms) {
    /** The answers of the reports, per delivery, from the calls' replies (in the calls' order). */
    List<Ack[]> answers(List<Object> replies) {
      if (froms == null) {
        return decodeAcks(reports, (List<?>) replies.get(0));
      }
      List<Ack[]> out = new ArrayList<>(reports.size());
      for (Report r : reports) {
        Ack[] none = new Ack[r.finished().size()];
        Arrays.fill(none, Ack.NONE);
        out.add(none);
      }
      for (int c = 0; c < calls.size(); c++) {
        List<Ack[]> answered = decodeAcks(parts.get(c), (List<?>) replies.get(c));
        for (int p = 0; p < parts.get(c).size(); p++) {
          int[] where = froms.get(c).get(p);
          for (int i = 0; i < answered.get(p).length; i++) {
            out.get(where[0])[where[i + 1]] = answered.get(p)[i];
          }
        }
      }
      return out;
    }
  }

  private AckCalls ackCalls(List<Report> reports) {
    if (keys.shards() == 1) { // the reports as they are (no froms: each delivery stays where it was)
      return new AckCalls(reports, List.of(ackCall(keys, reports)), List.of(reports), null);
    }
    List<List<Report>> parts = new ArrayList<>();
    List<List<int[]>> froms = new ArrayList<>();
    List<Scripts.Call> calls = new ArrayList<>();
    for (int shard = 0; shard < keys.shards(); shard++) {
      // this shard's part of each report, and where each of its deliveries came from
      List<Report> part = new ArrayList<>();
      List<int[]> from = new ArrayList<>();
      for (int ri = 0; ri < reports.size(); ri++) {
        Report r = reports.get(ri);
        Delivery started = r.started() != null && keys.shardIndexOf(r.started().id()) == shard ? r.started() : null;
        List<Delivery> finished = new ArrayList<>();
        List<Integer> positions = new ArrayList<>();
        for (int i = 0; i < r.finished().size(); i++) {
          if (keys.shardIndexOf(r.finished().get(i).id()) == shard) {
            finished.add(r.finished().get(i));
            positions.add(i);
          }
        }
        if (started != null || !finished.isEmpty()) {
          part.add(new Report(r.consumerId(), started, finished));
          int[] where = new int[positions.size() + 1];
          where[0] = ri;
          for (int i = 0; i < positions.size(); i++) {
            where[i + 1] = positions.get(i);
          }
          from.add(where);
        }
      }
      if (!part.isEmpty()) {
        parts.add(part);
        froms.add(from);
        calls.add(ackCall(keys.shard(shard), part));
      }
    }
    return new AckCalls(reports, calls, parts, froms);
  }

  private Scripts.Call ackCall(Keys keys, List<Report> reports) {
    List<String> keyList = new ArrayList<>(reports.size() + 4);
    List<String> args = new ArrayList<>();
    keyList.add(keys.jobs());
    keyList.add(keys.running());
    keyList.add(keys.ended());
    keyList.add(keys.endedExpiry());
    args.add(idRetentionMs);
    for (Report r : reports) {
      keyList.add(keys.inFlight(r.consumerId()));
      args.add(r.consumerId());
      args.add(r.started() == null ? "" : r.started().element());
      // the hints in one string, then the elements and the ids as they are: the script compares
      // and deletes them without cutting strings (include/ended.lua)
      StringBuilder hints = new StringBuilder(r.finished().size());
      for (Delivery d : r.finished()) {
        hints.append(d.ackHint());
      }
      args.add(hints.toString());
      for (Delivery d : r.finished()) {
        args.add(d.element());
      }
      for (Delivery d : r.finished()) {
        args.add(d.id());
      }
    }
    return new Scripts.Call(keyList, args);
  }

  private static List<Ack[]> decodeAcks(List<Report> reports, List<?> codes) {
    List<Ack[]> out = new ArrayList<>(reports.size());
    int at = 0;
    for (Report r : reports) {
      Ack[] answers = new Ack[r.finished().size()];
      for (int i = 0; i < answers.length; i++) {
        answers[i] = Ack.of(codes.get(at++));
      }
      out.add(answers);
    }
    return out;
  }

  /**
   * Acknowledges {@code ackFirst} (null for none), then gives back every other delivery of the
   * consumer (none of which it started): to the front of ready in claim order, with no attempt or
   * lost delivery counted.
   */
  public Released releaseClaimed(String consumerId, Delivery ackFirst) {
    int ackShard = ackFirst == null ? -1 : keys.shardIndexOf(ackFirst.id());
    Ack ack = Ack.NONE;
    int released = 0;
    for (int shard = 0; shard < keys.shards(); shard++) {
      Released r = releaseClaimed(consumerId, shard, shard == ackShard ? ackFirst : null);
      if (shard == ackShard) {
        ack = r.ack();
      }
      released += r.released();
    }
    return new Released(ack, released);
  }

  /**
   * As {@link #releaseClaimed(String, Delivery)}, in shard {@code shard} only; {@code ackFirst}
   * (null for none) must be a delivery of that shard.
   */
  public Released releaseClaimed(String consumerId, int shard, Delivery ackFirst) {
    Keys keys = this.keys.shard(shard);
    List<String> args = new ArrayList<>(4);
    args.add(idRetentionMs);
    addAck(args, ackFirst);
    List<?> r = (List<?>) scripts.eval(Script.RELEASE_CLAIMED,
        List.of(keys.inFlight(consumerId), keys.jobs(), keys.ready(), keys.ended(), keys.endedExpiry()), args);
    return new Released(Ack.of(r.get(0)), ((Long) r.get(1)).intValue());
  }

  /**
   * Gives back to ready (its right end, to run next, in claim order) the deliveries of
   * {@code unstarted}, which consumer {@code consumerId} claimed and will not start: those still in
   * its list leave it, uncounted, as {@link #releaseClaimed} gives back. Another consumer of its
   * worker sends it for the owner, whose handler runs long. On a queue of one shard. Returns how
   * many were still there.
   */
  public int handOffUnstarted(String consumerId, List<Delivery> unstarted) {
    if (keys.shards() != 1) {
      throw new IllegalStateException("handOffUnstarted is for a queue of one shard, not " + keys.shards());
    }
    return handOffUnstarted(consumerId, 0, unstarted);
  }

  /**
   * As {@link #handOffUnstarted(String, List)} in {@code shard}, where the deliveries were claimed
   * (a batch comes from one shard): its in-flight list and its ready list, one slot.
   */
  public int handOffUnstarted(String consumerId, int shard, List<Delivery> unstarted) {
    Keys keys = this.keys.shard(shard);
    List<String> elements = unstarted.stream().map(Delivery::element).toList();
    return ((Long) scripts.eval(Script.HAND_OFF_UNSTARTED, List.of(keys.inFlight(consumerId), keys.ready()),
        elements)).intValue();
  }

  /**
   * The delivery to acknowledge first, as claimReady, start and releaseClaimed take it
   * (include/ended.lua): its hint, its element and its id; three '' for none.
   */
  static void addAck(List<String> args, Delivery orNull) {
    if (orNull == null) {
      args.addAll(List.of("", "", ""));
    } else {
      args.add(String.valueOf(orNull.ackHint()));
      args.add(orNull.element());
      args.add(orNull.id());
    }
  }
}

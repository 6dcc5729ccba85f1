package dev.delayq.redis;

import dev.delayq.redis.InvariantCheck.Breach;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The last look of the {@link InvariantCheck} at one shard, by id: the same walk as a
 * {@link HashedLook}'s, keeping only the ids whose hash is a candidate's, with every place each
 * is in, then judged as the invariant says. It holds as many ids as there are candidates (breaches
 * that persisted over the looks before, and ids sharing a hash with one), never the queue.
 */
final class CandidateCheck implements ShardWalk.Sink {
  private final IdHashes hashes;
  private final String waitingPlace;
  private final Map<String, List<String>> places = new LinkedHashMap<>();
  private final Set<String> waiting = new HashSet<>();
  private final Set<String> records = new HashSet<>();
  private final Set<String> ended = new LinkedHashSet<>();
  private final Set<String> expiring = new LinkedHashSet<>();

  /** {@code hashes}: the candidates' hashes with their kind bits cleared, sorted. */
  CandidateCheck(IdHashes hashes, String shardName) {
    this.hashes = hashes;
    this.waitingPlace = "waiting" + shardName;
  }

  private boolean wanted(String id) {
    return hashes.contains(HashedLook.key(IdHashes.of(id), 0));
  }

  @Override
  public void place(String id, String place) {
    // HSCAN may hand a waiting id out twice: once is its place
    if (wanted(id) && (!place.equals(waitingPlace) || waiting.add(id))) {
      places.computeIfAbsent(id, k -> new ArrayList<>(1)).add(place);
    }
  }

  @Override
  public void misfiled(String id, String place) {
    // reported by the hashed looks, with its id
  }

  @Override
  public void outOfRange(String id, String due) {
    // reported by the hashed looks, with its id
  }

  @Override
  public void record(String id) {
    if (wanted(id)) {
      records.add(id);
    }
  }

  @Override
  public void ended(String id) {
    if (wanted(id)) {
      ended.add(id);
    }
  }

  @Override
  public void expiring(String id) {
    if (wanted(id)) {
      expiring.add(id);
    }
  }

  /** The breaches among the candidates walked: orphans, places without a record or several, ended ones. */
  List<Breach> breaches() {
    List<Breach> out = new ArrayList<>();
    for (String id : records) {
      if (!places.containsKey(id)) {
        out.add(new Breach(id, Breach.Kind.ORPHAN_RECORD, List.of()));
      }
    }
    places.forEach((id, where) -> {
      if (!records.contains(id)) {
        // the waiting entry is a breach of its own, repaired apart from the other places
        List<String> others = where;
        if (waiting.contains(id)) {
          out.add(new Breach(id, Breach.Kind.WAITING_WITHOUT_RECORD, List.of(waitingPlace)));
          others = where.stream().filter(p -> !p.equals(waitingPlace)).toList();
        }
        if (!others.isEmpty()) {
          out.add(new Breach(id, Breach.Kind.MISSING_RECORD, others));
        }
      } else if (where.size() > 1) {
        out.add(new Breach(id, Breach.Kind.SEVERAL_PLACES, where));
      }
    });
    for (String id : ended) {
      if (records.contains(id)) {
        out.add(new Breach(id, Breach.Kind.ENDED_MISMATCH, List.of("it has a record in jobs")));
      }
      if (!expiring.remove(id)) {
        out.add(new Breach(id, Breach.Kind.ENDED_MISMATCH, List.of("not in ended:expiry")));
      }
    }
    for (String id : expiring) {
      out.add(new Breach(id, Breach.Kind.ENDED_MISMATCH, List.of("in ended:expiry only")));
    }
    return out;
  }
}

package dev.delayq.redis;

import java.util.List;

/**
 * What one {@link #claimReady} did: the acknowledgement folded into it, the jobs claimed in
 * order (the first already marked running), ids dropped from ready for having no record, the
 * shard they came from, and the length of that shard's ready list right after the claim (-1 when
 * not known: flow control took the ids one by one).
 */
public record Batch(Ack ack, List<Claimed> jobs, List<String> dropped, int shard, long left) {
  boolean empty() {
    return jobs.isEmpty() && dropped.isEmpty();
  }
}

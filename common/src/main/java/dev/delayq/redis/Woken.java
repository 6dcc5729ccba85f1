package dev.delayq.redis;

import java.util.List;

/**
 * What a claim after a wait brought: the jobs in claim order (the first marked running, the
 * others waiting for {@link #start}), ids dropped for having no record, and the length of ready
 * right after the claim (0 too when the wait timed out), or -1 when it was not looked at.
 */
public record Woken(List<Claimed> jobs, List<String> dropped, long left) {
  static final Woken NONE = new Woken(List.of(), List.of(), -1);
}

package dev.delayq;

import java.util.List;

/**
 * What {@link DelayQueue#fanIn} enqueued: each child's result, in the order given, and the
 * parent's (WAITING while any child is pending).
 */
public record FanIn(List<EnqueueResult> children, EnqueueResult parent) {
  public FanIn {
    children = List.copyOf(children);
  }
}

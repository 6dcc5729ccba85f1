package dev.delayq.redis;

/**
 * What {@link Script#ENQUEUE} does when the id exists and has not started, as the script spells
 * it: the gateway's side of the producer's {@code dev.delayq.IfPending}, which maps onto it one to
 * one (the producer API lives above this module, so the script's options are named here).
 */
public enum PendingRule {
  KEEP(""),
  REPLACE_PAYLOAD("+payload"),
  PUSH_DUE("+due"),
  REPLACE_AND_PUSH("+payload+due");

  private final String option;

  PendingRule(String option) {
    this.option = option;
  }

  /** The suffix of enqueue.lua's mode argument. */
  public String scriptOption() {
    return option;
  }
}

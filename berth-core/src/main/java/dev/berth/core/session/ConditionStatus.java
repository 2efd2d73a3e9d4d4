package dev.berth.core.session;

/** Tri-state truth of a condition; Unknown means "not known", never "false". */
public enum ConditionStatus {
  TRUE,
  FALSE,
  UNKNOWN
}

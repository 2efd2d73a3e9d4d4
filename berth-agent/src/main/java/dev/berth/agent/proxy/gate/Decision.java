package dev.berth.agent.proxy.gate;

import java.util.Objects;
import java.util.Optional;

/** What became of one gated tool call, and why (the approver's reason, or what went wrong). */
public record Decision(Verdict verdict, Optional<String> reason) {

  /** How a call's wait ended. Only {@link #APPROVED} lets it through. */
  public enum Verdict {
    APPROVED("approved"),
    REJECTED("rejected"),
    EXPIRED("expired"),
    TIMED_OUT("timed out"),
    CANCELLED("cancelled"),
    ERROR("gateway error");

    private final String words;

    Verdict(String words) {
      this.words = words;
    }

    /** How a marker says it: {@code approved}, {@code timed out}, {@code gateway error}. */
    public String words() {
      return words;
    }
  }

  public Decision {
    Objects.requireNonNull(verdict, "verdict");
    Objects.requireNonNull(reason, "reason");
  }

  public static Decision approval() {
    return new Decision(Verdict.APPROVED, Optional.empty());
  }

  public static Decision of(Verdict verdict, String reason) {
    return new Decision(verdict, Optional.of(reason));
  }

  public boolean lets() {
    return verdict == Verdict.APPROVED;
  }
}

package dev.berth.agent.agentcli;

import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Which marker lines of a session's answers become {@code approval} entries of its transcript: a
 * marker the session's proxy confirms it wrote ({@link MarkerConfirmation}), once per approval id
 * and state. Anything else that looks like a marker stays what it is, text of the answer: a marker
 * the model made up (an id the proxy never gave, or a real id with another state), and a real one
 * the model repeats from its history (the proxy confirms it again; the entry is there already).
 *
 * <p>The markers recorded so far are read from the transcript once, at the first confirmed marker,
 * so that an agent restarted beside a proxy that still remembers (a pod's agent container restarted
 * alone) does not record a repeated marker twice. One per session; its runs take turns.
 */
final class ApprovalLedger {

  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(ApprovalLedger.class);

  private final MarkerConfirmation confirmation;
  private final TranscriptLog transcript;
  private @Nullable Set<String> recorded;

  ApprovalLedger(MarkerConfirmation confirmation, TranscriptLog transcript) {
    this.confirmation = confirmation;
    this.transcript = transcript;
  }

  /**
   * The entry {@code read} (a marker line as read from the answer) makes: the proxy's tool and
   * reason under the marker's id and state; empty when the proxy did not write it or it is recorded
   * already.
   */
  synchronized Optional<TranscriptEvent.Approval> admit(TranscriptEvent.Approval read) {
    String key = read.approvalId() + " " + read.state();
    if (recorded != null && recorded.contains(key)) {
      LOG.debug("approval marker {} repeated; recorded once already", key);
      return Optional.empty();
    }
    Optional<MarkerConfirmation.Confirmed> confirmed =
        confirmation.confirm(read.approvalId(), read.state());
    if (confirmed.isEmpty()) {
      LOG.debug("approval marker {} not written by the session's proxy: kept as text", key);
      return Optional.empty();
    }
    Set<String> seen = recorded();
    if (!seen.add(key)) {
      LOG.debug("approval marker {} repeated; recorded once already", key);
      return Optional.empty();
    }
    return Optional.of(
        new TranscriptEvent.Approval(
            read.approvalId(), confirmed.get().tool(), read.state(), confirmed.get().reason()));
  }

  private Set<String> recorded() {
    Set<String> seen = recorded;
    if (seen == null) {
      seen = new HashSet<>();
      for (var entry : transcript.ofType("approval")) {
        seen.add(entry.path("approvalId").asString("") + " " + entry.path("state").asString(""));
      }
      recorded = seen;
    }
    return seen;
  }
}

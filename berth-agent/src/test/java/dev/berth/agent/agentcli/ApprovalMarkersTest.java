package dev.berth.agent.agentcli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.agent.proxy.gate.Decision;
import dev.berth.agent.proxy.gate.Markers;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The proxy's marker lines, however the answer's text is cut, read back as approval entries. */
class ApprovalMarkersTest {

  private static final String ID = "a".repeat(32) + ":" + "0123456789abcdef".repeat(2);

  @Test
  void everyMarkerTheProxyWritesIsReadBackWithItsStateAndReason() {
    String text =
        "Let me look.\n"
            + Markers.awaiting("mcp__docs__search", ID)
            + Markers.result("mcp__docs__search", ID, Decision.approval())
            + Markers.result("Bash", ID, Decision.of(Decision.Verdict.REJECTED, "not [today]\nno"))
            + Markers.result(
                "Bash", ID, Decision.of(Decision.Verdict.TIMED_OUT, "no decision within 600 s"))
            + Markers.result("Bash", ID, new Decision(Decision.Verdict.EXPIRED, Optional.empty()))
            + Markers.result("Bash", ID, Decision.of(Decision.Verdict.CANCELLED, "suspended"))
            + Markers.result("Bash", ID, Decision.of(Decision.Verdict.ERROR, "cannot be reached"))
            + "[berth: something else — Bash · "
            + ID
            + "]\n";

    List<TranscriptEvent.Approval> read = new ArrayList<>();
    ApprovalMarkers markers = new ApprovalMarkers();
    for (int i = 0; i < text.length(); i += 3) {
      read.addAll(markers.take(text.substring(i, Math.min(text.length(), i + 3))));
    }
    read.addAll(markers.finish());

    assertThat(read)
        .containsExactly(
            new TranscriptEvent.Approval(ID, "mcp__docs__search", "pending", Optional.empty()),
            new TranscriptEvent.Approval(ID, "mcp__docs__search", "approved", Optional.empty()),
            new TranscriptEvent.Approval(ID, "Bash", "rejected", Optional.of("not (today) no")),
            new TranscriptEvent.Approval(
                ID, "Bash", "timed_out", Optional.of("no decision within 600 s")),
            new TranscriptEvent.Approval(ID, "Bash", "expired", Optional.empty()),
            new TranscriptEvent.Approval(ID, "Bash", "cancelled", Optional.of("suspended")),
            new TranscriptEvent.Approval(ID, "Bash", "error", Optional.of("cannot be reached")));
  }

  @Test
  void aMarkerAfterTextOnTheSameLineIsStillOne() {
    assertThat(ApprovalMarkers.read("Running it now.[berth: approved — Bash · " + ID + "]"))
        .containsExactly(new TranscriptEvent.Approval(ID, "Bash", "approved", Optional.empty()));
    assertThat(ApprovalMarkers.read("[berth: approved — Bash · not-an-id]")).isEmpty();
  }
}

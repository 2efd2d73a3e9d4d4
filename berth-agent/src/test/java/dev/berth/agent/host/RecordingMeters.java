package dev.berth.agent.host;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/** The host's reports, kept as they came: for tests that check what the host reported. */
final class RecordingMeters implements NodeMeters {

  private final Map<OutputKind, Long> output = new ConcurrentHashMap<>();
  private final List<SandboxFailure> failures = new CopyOnWriteArrayList<>();

  @Override
  public void outputCaptured(OutputKind kind, int bytes) {
    output.merge(kind, (long) bytes, Long::sum);
  }

  @Override
  public void sandboxFailed(SandboxFailure reason) {
    failures.add(reason);
  }

  long output(OutputKind kind) {
    return output.getOrDefault(kind, 0L);
  }

  List<SandboxFailure> failures() {
    return List.copyOf(failures);
  }
}

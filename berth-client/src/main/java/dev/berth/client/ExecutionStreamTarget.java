package dev.berth.client;

import dev.berth.core.execution.ExecutionId;
import dev.berth.core.session.SessionId;
import java.util.Optional;

/**
 * An execution's output stream: it ends after the execution finished and its output was sent, so a
 * follow ends when the execution is finished and the cursor reached the end of its log; there is no
 * read route to re-read from after a reset.
 */
final class ExecutionStreamTarget implements FollowTarget {

  private final BerthClient client;
  private final SessionId session;
  private final ExecutionId execution;

  ExecutionStreamTarget(BerthClient client, SessionId session, ExecutionId execution) {
    this.client = client;
    this.session = session;
    this.execution = execution;
  }

  @Override
  public String describe() {
    return "execution " + execution;
  }

  @Override
  public String streamPath(long cursor) {
    return "/sessions/" + session + "/executions/" + execution + "/output?offset=" + cursor;
  }

  @Override
  public Optional<ReadResult> reread() {
    return Optional.empty();
  }

  @Override
  public Optional<StreamEnd.Reason> over(long cursor, StringBuilder detail) {
    try {
      Execution current = client.execution(session, execution);
      boolean allOutput = current.outputEnd().stream().allMatch(end -> cursor >= end);
      if (current.isFinished() && allOutput) {
        detail.append("execution ").append(execution).append(" is ").append(current.state());
        return Optional.of(StreamEnd.Reason.FINISHED);
      }
      return Optional.empty();
    } catch (BerthApiException e) {
      if (e.status() == 404) {
        detail.append("execution ").append(execution).append(" no longer exists");
        return Optional.of(StreamEnd.Reason.UNAVAILABLE);
      }
      throw e;
    }
  }
}

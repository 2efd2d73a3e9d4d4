package dev.berth.agent.isolation;

import com.pty4j.unix.PtyHelpers;

/**
 * Sends POSIX signals to a process or a process group. The JDK can only send SIGTERM and SIGKILL to
 * single processes; hang-ups and group signals go through libc's {@code kill}/{@code killpg},
 * reached through pty4j's JNA binding (already loaded for the PTY). Loading it makes pty4j find its
 * native library, hence {@link PtyNative#prepare()} first.
 *
 * <p>The numbers are Linux's (x86 and ARM), like the rest of the agent.
 *
 * <p>Targets 0 and 1 are refused: {@code kill(0, …)} would signal the agent's own group, {@code
 * kill(-1, …)} every process the agent may signal, and pid 1 is init.
 */
public final class Signals {
  public static final int SIGHUP = 1;
  public static final int SIGKILL = 9;
  public static final int SIGUSR1 = 10;
  public static final int SIGTERM = 15;
  public static final int SIGCONT = 18;
  public static final int SIGSTOP = 19;
  public static final int SIGWINCH = 28;

  private Signals() {}

  /**
   * Sends {@code signal} to process {@code pid}.
   *
   * @return whether the signal was delivered (false when no such process exists)
   */
  public static boolean toProcess(long pid, int signal) {
    PtyNative.prepare();
    return PtyHelpers.getInstance().kill(checked(pid), signal) == 0;
  }

  /**
   * Sends {@code signal} to every process in group {@code pgid}.
   *
   * @return whether at least one process received it
   */
  public static boolean toGroup(long pgid, int signal) {
    PtyNative.prepare();
    return PtyHelpers.getInstance().killpg(checked(pgid), signal) == 0;
  }

  private static int checked(long pid) {
    if (pid <= 1 || pid > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("refusing to signal pid or group " + pid);
    }
    return (int) pid;
  }
}

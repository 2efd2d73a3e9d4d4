package dev.berth.agent.isolation;

import java.nio.file.Path;

/**
 * Who a sandboxed workload runs as: always {@code berth}, uid and gid 1000, inside its own user
 * namespace, mapped to an unprivileged uid of the host.
 *
 * <p>An agent running as root maps every session to a host uid of its own ({@link UidClaims}), so
 * that a session that escaped its namespaces would land as a user who owns nothing but that
 * session's files. An agent running as an ordinary user can map only its own uid (no {@code
 * /etc/subuid} range is used), so its sessions share that uid; the mount view, PID namespace and
 * seccomp filter still keep them from one another, and the report says {@code dedicated: false}.
 *
 * @param uid the uid inside the sandbox: 1000
 * @param name the user name inside the sandbox: {@code berth}
 * @param hostUid the host uid the workload's processes and files have
 * @param hostGid the host gid likewise
 * @param dedicated whether {@code hostUid} belongs to this session alone
 */
public record SessionUser(int uid, String name, long hostUid, long hostGid, boolean dedicated) {
  /** The uid and gid of the session's user inside the sandbox. */
  public static final int INSIDE_UID = 1000;

  /** The session's home inside the sandbox: the same path in every incarnation. */
  public static final Path HOME = Path.of("/home/berth");

  /** The session's user name inside the sandbox. */
  public static final String INSIDE_NAME = "berth";

  static SessionUser mappedTo(long hostUid, long hostGid, boolean dedicated) {
    return new SessionUser(INSIDE_UID, INSIDE_NAME, hostUid, hostGid, dedicated);
  }
}

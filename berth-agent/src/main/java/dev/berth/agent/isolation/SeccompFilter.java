package dev.berth.agent.isolation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The seccomp filter every sandboxed workload runs under: a classic BPF program, built here for the
 * machine's architecture and handed to bwrap ({@code --seccomp FD}), which installs it (with {@code
 * no_new_privs}) right before it executes the workload.
 *
 * <p>It is a deny list of what a shell never needs and what an attacker wants: tracing and reading
 * other processes' memory ({@code ptrace}, {@code process_vm_*}, {@code kcmp}), mounting and
 * namespaces ({@code mount} and the new mount API, {@code unshare}, {@code setns}, {@code clone}
 * with a namespace flag, {@code clone3} whose flags a filter cannot read), the kernel keyring,
 * {@code bpf}, {@code userfaultfd} and {@code io_uring} (the usual kernel-exploit primitives),
 * modules, kexec, reboot, swap, accounting, {@code perf_event_open}, handle-based opens that step
 * around the mount view, port I/O, {@code pidfd_getfd} and {@code process_madvise}; and sockets of
 * any family but {@code AF_UNIX}, {@code AF_INET}, {@code AF_INET6} and {@code AF_NETLINK} ({@code
 * AF_VSOCK}, for one, reaches past the network namespace to the hypervisor). Refused calls fail
 * with {@code EPERM} ({@code clone3} with {@code ENOSYS}, so that the C library falls back to
 * {@code clone}, which the filter can read); a call made through another ABI (x32, i386 on x86_64)
 * kills the process, since the numbers below would not mean what they say there.
 *
 * <p>Why a deny list and not an allow list: an allow list has to follow every program a user may
 * run in a shell (compilers, language runtimes, debuggers' non-ptrace parts), and one missing call
 * breaks it in ways no one can diagnose; the calls denied here are the ones with no business in a
 * session, and the rest is confined by the user namespace, the mount view and the cgroup.
 */
public final class SeccompFilter {
  private static final int AUDIT_ARCH_X86_64 = 0xC000003E;
  private static final int AUDIT_ARCH_AARCH64 = 0xC00000B7;
  private static final int X32_SYSCALL_BIT = 0x40000000;
  private static final int RET_KILL_PROCESS = 0x80000000;
  private static final int RET_ALLOW = 0x7fff0000;
  private static final int RET_ERRNO = 0x00050000;
  private static final int EPERM = 1;
  private static final int ENOSYS = 38;
  private static final int EAFNOSUPPORT = 97;
  private static final int AF_UNIX = 1;
  private static final int AF_INET = 2;
  private static final int AF_INET6 = 10;
  private static final int AF_NETLINK = 16;
  private static final int CLONE_NAMESPACE_FLAGS = 0x7E020000;
  // BPF opcodes: ld word absolute, jeq/jge/jset immediate, ret immediate.
  private static final short LD_W_ABS = 0x20;
  private static final short JEQ_K = 0x15;
  private static final short JGE_K = 0x35;
  private static final short JSET_K = 0x45;
  private static final short RET_K = 0x06;
  // Offsets in struct seccomp_data: nr, arch, args[0] (its low 32 bits on little-endian).
  private static final int NR = 0;
  private static final int ARCH = 4;
  private static final int ARG0_LOW = 16;

  private final String architecture;
  private final int auditArch;
  private final Map<String, Integer> denied;
  private final int clone;
  private final int clone3;
  private final int socket;
  private final int socketpair;

  private SeccompFilter(
      String architecture, int auditArch, Map<String, Integer> denied, int[] special) {
    this.architecture = architecture;
    this.auditArch = auditArch;
    this.denied = denied;
    this.clone = special[0];
    this.clone3 = special[1];
    this.socket = special[2];
    this.socketpair = special[3];
  }

  /** The filter for this JVM's architecture; empty where no syscall table is known here. */
  public static Optional<SeccompFilter> forThisMachine() {
    return forArchitecture(System.getProperty("os.arch", ""));
  }

  /** The filter for {@code osArch} ({@code amd64}/{@code x86_64} or {@code aarch64}). */
  static Optional<SeccompFilter> forArchitecture(String osArch) {
    return switch (osArch.toLowerCase(Locale.ROOT)) {
      case "amd64", "x86_64" ->
          Optional.of(
              new SeccompFilter("x86_64", AUDIT_ARCH_X86_64, X86_64, new int[] {56, 435, 41, 53}));
      case "aarch64", "arm64" ->
          Optional.of(
              new SeccompFilter(
                  "aarch64", AUDIT_ARCH_AARCH64, AARCH64, new int[] {220, 435, 198, 199}));
      default -> Optional.empty();
    };
  }

  /** The architecture the filter was built for. */
  public String architecture() {
    return architecture;
  }

  /** What the filter refuses, by name, for the isolation report. */
  public List<String> denied() {
    List<String> names = new ArrayList<>(denied.keySet());
    names.add("clone3");
    names.add("clone with namespace flags");
    names.add("socket and socketpair outside AF_UNIX, AF_INET, AF_INET6, AF_NETLINK");
    return names;
  }

  /** The program as bwrap reads it: {@code struct sock_filter} entries in native byte order. */
  public byte[] program() {
    List<long[]> insns = new ArrayList<>();
    insns.add(insn(LD_W_ABS, 0, 0, ARCH));
    insns.add(insn(JEQ_K, 1, 0, auditArch));
    insns.add(insn(RET_K, 0, 0, RET_KILL_PROCESS));
    insns.add(insn(LD_W_ABS, 0, 0, NR));
    if (auditArch == AUDIT_ARCH_X86_64) {
      insns.add(insn(JGE_K, 0, 1, X32_SYSCALL_BIT));
      insns.add(insn(RET_K, 0, 0, RET_KILL_PROCESS));
    }
    for (int nr : denied.values()) {
      insns.add(insn(JEQ_K, 0, 1, nr));
      insns.add(insn(RET_K, 0, 0, RET_ERRNO | EPERM));
    }
    insns.add(insn(JEQ_K, 0, 1, clone3));
    insns.add(insn(RET_K, 0, 0, RET_ERRNO | ENOSYS));
    // socket(family, ...) and socketpair(family, ...): the families a shell uses, nothing that
    // the network namespace does not confine (AF_VSOCK reaches the hypervisor, for one).
    for (int call : new int[] {socket, socketpair}) {
      insns.add(insn(JEQ_K, 0, 7, call));
      insns.add(insn(LD_W_ABS, 0, 0, ARG0_LOW));
      insns.add(insn(JEQ_K, 4, 0, AF_UNIX));
      insns.add(insn(JEQ_K, 3, 0, AF_INET));
      insns.add(insn(JEQ_K, 2, 0, AF_INET6));
      insns.add(insn(JEQ_K, 1, 0, AF_NETLINK));
      insns.add(insn(RET_K, 0, 0, RET_ERRNO | EAFNOSUPPORT));
      insns.add(insn(RET_K, 0, 0, RET_ALLOW));
    }
    insns.add(insn(JEQ_K, 0, 3, clone));
    insns.add(insn(LD_W_ABS, 0, 0, ARG0_LOW));
    insns.add(insn(JSET_K, 0, 1, CLONE_NAMESPACE_FLAGS));
    insns.add(insn(RET_K, 0, 0, RET_ERRNO | EPERM));
    insns.add(insn(RET_K, 0, 0, RET_ALLOW));
    ByteBuffer buffer = ByteBuffer.allocate(insns.size() * 8).order(ByteOrder.nativeOrder());
    for (long[] insn : insns) {
      buffer.putShort((short) insn[0]).put((byte) insn[1]).put((byte) insn[2]);
      buffer.putInt((int) insn[3]);
    }
    return buffer.array();
  }

  /** Writes {@link #program()} to {@code file} (mode 0600: bwrap reads it through an fd). */
  public Path writeTo(Path file) {
    try {
      Files.write(file, program());
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the seccomp filter to " + file, e);
    }
  }

  private static long[] insn(short code, int jt, int jf, int k) {
    return new long[] {code, jt, jf, k};
  }

  private static Map<String, Integer> table(Object... pairs) {
    Map<String, Integer> map = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      map.put((String) pairs[i], (Integer) pairs[i + 1]);
    }
    return map;
  }

  private static final Map<String, Integer> X86_64 =
      table(
          "ptrace",
          101,
          "process_vm_readv",
          310,
          "process_vm_writev",
          311,
          "kcmp",
          312,
          "mount",
          165,
          "umount2",
          166,
          "pivot_root",
          155,
          "open_tree",
          428,
          "move_mount",
          429,
          "fsopen",
          430,
          "fsconfig",
          431,
          "fsmount",
          432,
          "fspick",
          433,
          "mount_setattr",
          442,
          "unshare",
          272,
          "setns",
          308,
          "keyctl",
          250,
          "add_key",
          248,
          "request_key",
          249,
          "bpf",
          321,
          "userfaultfd",
          323,
          "io_uring_setup",
          425,
          "io_uring_enter",
          426,
          "io_uring_register",
          427,
          "init_module",
          175,
          "finit_module",
          313,
          "delete_module",
          176,
          "kexec_load",
          246,
          "kexec_file_load",
          320,
          "reboot",
          169,
          "swapon",
          167,
          "swapoff",
          168,
          "acct",
          163,
          "perf_event_open",
          298,
          "name_to_handle_at",
          303,
          "open_by_handle_at",
          304,
          "iopl",
          172,
          "ioperm",
          173,
          "syslog",
          103,
          "quotactl",
          179,
          "lookup_dcookie",
          212,
          "pidfd_getfd",
          438,
          "process_madvise",
          440);

  private static final Map<String, Integer> AARCH64 =
      table(
          "ptrace",
          117,
          "process_vm_readv",
          270,
          "process_vm_writev",
          271,
          "kcmp",
          272,
          "mount",
          40,
          "umount2",
          39,
          "pivot_root",
          41,
          "open_tree",
          428,
          "move_mount",
          429,
          "fsopen",
          430,
          "fsconfig",
          431,
          "fsmount",
          432,
          "fspick",
          433,
          "mount_setattr",
          442,
          "unshare",
          97,
          "setns",
          268,
          "keyctl",
          219,
          "add_key",
          217,
          "request_key",
          218,
          "bpf",
          280,
          "userfaultfd",
          282,
          "io_uring_setup",
          425,
          "io_uring_enter",
          426,
          "io_uring_register",
          427,
          "init_module",
          105,
          "finit_module",
          273,
          "delete_module",
          106,
          "kexec_load",
          104,
          "kexec_file_load",
          294,
          "reboot",
          142,
          "swapon",
          224,
          "swapoff",
          225,
          "acct",
          89,
          "perf_event_open",
          241,
          "name_to_handle_at",
          264,
          "open_by_handle_at",
          265,
          "syslog",
          116,
          "quotactl",
          60,
          "lookup_dcookie",
          18,
          "pidfd_getfd",
          438,
          "process_madvise",
          440);
}

package dev.berth.agent.isolation;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

class SeccompFilterTest {

  @Test
  void theProgramChecksTheArchitectureFirstAndEndsByAllowing() {
    byte[] program = SeccompFilter.forArchitecture("amd64").orElseThrow().program();
    ByteBuffer insns = ByteBuffer.wrap(program).order(ByteOrder.nativeOrder());

    assertThat(program.length % 8).isZero();
    // ld [4] (arch); jeq AUDIT_ARCH_X86_64; ret KILL_PROCESS
    assertThat(insns.getShort(0)).isEqualTo((short) 0x20);
    assertThat(insns.getInt(4)).isEqualTo(4);
    assertThat(insns.getInt(12)).isEqualTo(0xC000003E);
    assertThat(insns.getInt(20)).isEqualTo(0x80000000);
    int last = program.length - 8;
    assertThat(insns.getShort(last)).isEqualTo((short) 0x06);
    assertThat(insns.getInt(last + 4)).as("SECCOMP_RET_ALLOW").isEqualTo(0x7fff0000);
    // A classic BPF program has at most 4096 instructions, and jumps reach 255 ahead.
    assertThat(program.length / 8).isLessThan(4096);
  }

  @Test
  void bothArchitecturesDenyTheSameCallsAndOthersHaveNoFilter() {
    SeccompFilter x86 = SeccompFilter.forArchitecture("x86_64").orElseThrow();
    SeccompFilter arm = SeccompFilter.forArchitecture("aarch64").orElseThrow();

    assertThat(x86.denied())
        .contains("ptrace", "mount", "keyctl", "bpf", "userfaultfd", "init_module", "unshare")
        .containsAll(arm.denied().stream().filter(n -> !n.startsWith("io")).toList());
    assertThat(arm.denied()).doesNotContain("iopl", "ioperm");
    assertThat(SeccompFilter.forArchitecture("riscv64")).isEmpty();
  }
}

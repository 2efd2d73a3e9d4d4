package dev.berth.agent.isolation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.berth.core.error.InvalidValueException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class SandboxBindTest {

  @Test
  void aSourceAloneIsBoundReadWriteAtItsOwnPath() {
    assertThat(SandboxBind.parse("/opt/cache"))
        .isEqualTo(new SandboxBind(Path.of("/opt/cache"), Path.of("/opt/cache"), false));
  }

  @Test
  void aTargetAndRoAreTakenInThatOrder() {
    assertThat(SandboxBind.parse("/srv/tools:/opt/tools:ro"))
        .isEqualTo(new SandboxBind(Path.of("/srv/tools"), Path.of("/opt/tools"), true));
    assertThat(SandboxBind.parse("/srv/tools:ro"))
        .isEqualTo(new SandboxBind(Path.of("/srv/tools"), Path.of("/srv/tools"), true));
    assertThat(SandboxBind.parse("/srv/tools:/opt/tools:ro").spec())
        .isEqualTo("/srv/tools:/opt/tools:ro");
  }

  @Test
  void relativePathsAndMalformedSpecsAreRefusedWithTheSpec() {
    assertThatThrownBy(() -> SandboxBind.parse("tools"))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("absolute path");
    assertThatThrownBy(() -> SandboxBind.parse("/a:/b:/c"))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("SRC[:DST][:ro]")
        .hasMessageContaining("/a:/b:/c");
    assertThatThrownBy(() -> SandboxBind.parse(":/b")).isInstanceOf(InvalidValueException.class);
  }

  @Test
  void aBindCannotCoverTheSessionsHomeOrTheViewsFixedParts() {
    for (String target :
        new String[] {
          "/", "/proc", "/dev/shm", "/home/berth", "/home/berth/x", "/tmp", "/run/berth"
        }) {
      assertThatThrownBy(() -> SandboxBind.parse("/srv:" + target))
          .as(target)
          .isInstanceOf(InvalidValueException.class)
          .hasMessageContaining("Berth owns");
    }
  }
}

package dev.berth.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CredentialStoreTest {

  @TempDir Path home;

  @Test
  void savesTheTokenReadableByItsOwnerOnly() throws Exception {
    Path dir = home.resolve(".config/berth");
    CredentialStore store = new CredentialStore(dir);

    store.save(new CredentialStore.Credentials("http://127.0.0.1:8080", "secret"));

    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(store.file())))
        .isEqualTo("rw-------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)))
        .isEqualTo("rwx------");
    assertThat(store.load())
        .contains(new CredentialStore.Credentials("http://127.0.0.1:8080", "secret"));
    assertThat(store.readableByOthers()).isFalse();
    try (var files = Files.list(dir)) {
      assertThat(files).containsExactly(store.file());
    }
  }

  @Test
  void replacingTheFileKeepsItPrivateEvenIfItWasOpenedUp() throws Exception {
    CredentialStore store = new CredentialStore(home);
    store.save(new CredentialStore.Credentials("http://a:1", "one"));
    Files.setPosixFilePermissions(store.file(), PosixFilePermissions.fromString("rw-r--r--"));
    assertThat(store.readableByOthers()).isTrue();

    store.save(new CredentialStore.Credentials("http://b:2", "two"));

    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(store.file())))
        .isEqualTo("rw-------");
    assertThat(store.load()).contains(new CredentialStore.Credentials("http://b:2", "two"));
  }

  @Test
  void hasNothingBeforeTheFirstLoginAndSaysWhenTheFileIsBroken() throws Exception {
    CredentialStore store = new CredentialStore(home);
    assertThat(store.load()).isEmpty();

    Files.writeString(store.file(), "not json");

    assertThatThrownBy(store::load)
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("berth login");
  }

  @Test
  void theConfigDirectoryFollowsXdgConfigHome() {
    CliHarness harness = new CliHarness(home);
    CliEnvironment env =
        new CliEnvironment(
            java.util.Map.of("HOME", "/home/u", "XDG_CONFIG_HOME", "/xdg"),
            System.in,
            System.out,
            java.time.InstantSource.system(),
            () -> harness.terminal,
            false);
    assertThat(env.configDirectory()).isEqualTo(Path.of("/xdg/berth"));
    CliEnvironment noXdg =
        new CliEnvironment(
            java.util.Map.of("HOME", "/home/u", "XDG_CONFIG_HOME", ""),
            System.in,
            System.out,
            java.time.InstantSource.system(),
            () -> harness.terminal,
            false);
    assertThat(noXdg.configDirectory()).isEqualTo(Path.of("/home/u/.config/berth"));
  }
}

package dev.berth.agent.agentcli;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The fake model provider as a process, for the web UI's browser tests (web/e2e): no real provider
 * is reachable from the machines the tests run on. Started with a directory, it writes {@code
 * provider.json} there ({@code {"url","caFile"}}) once it listens, and serves until it is killed.
 */
public final class FakeModelProviderMain {

  private FakeModelProviderMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 1) {
      System.err.println("usage: FakeModelProviderMain DIRECTORY");
      System.exit(2);
    }
    Path dir = Files.createDirectories(Path.of(args[0]));
    FakeModelProvider provider = FakeModelProvider.https(dir);
    Path temp = dir.resolve("provider.json.tmp");
    Files.writeString(
        temp,
        "{\"url\":\"" + provider.url() + "\",\"caFile\":\"" + provider.caCertificate() + "\"}");
    Files.move(temp, dir.resolve("provider.json"), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    Thread.currentThread().join();
  }
}

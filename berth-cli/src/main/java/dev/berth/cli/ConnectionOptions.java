package dev.berth.cli;

import dev.berth.client.BerthClient;
import java.net.URI;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/**
 * {@code --url} and {@code --token} of the client commands, and where they come from when not
 * given: {@code BERTH_URL} / {@code BERTH_TOKEN}, then what {@code berth login} saved. The saved
 * token is only ever sent to the URL it was saved for, so pointing a command at another server
 * never leaks it there.
 */
final class ConnectionOptions {

  static final String URL_VARIABLE = "BERTH_URL";
  static final String TOKEN_VARIABLE = "BERTH_TOKEN";

  @Option(
      names = "--url",
      paramLabel = "URL",
      description =
          "The Berth server (default: $BERTH_URL, else the URL 'berth login' saved, else "
              + BerthClient.DEFAULT_URL
              + ").")
  @Nullable String url;

  @Option(
      names = "--token",
      paramLabel = "TOKEN",
      description =
          "The bearer token (default: $BERTH_TOKEN, else the token 'berth login' saved for this"
              + " URL). Prefer those: a token on the command line is visible to other users in"
              + " the process list.")
  @Nullable String token;

  /** The server to talk to: the option, the variable, the saved URL, the default. */
  URI url(CliEnvironment env, Optional<CredentialStore.Credentials> saved) {
    String chosen =
        Optional.ofNullable(url)
            .or(() -> env.variable(URL_VARIABLE))
            .or(() -> saved.map(CredentialStore.Credentials::url))
            .orElse(BerthClient.DEFAULT_URL);
    try {
      return BerthClient.normalize(chosen);
    } catch (IllegalArgumentException e) {
      throw new UsageException(Objects.requireNonNullElse(e.getMessage(), e.toString()));
    }
  }

  /**
   * A client of the chosen server with the chosen token.
   *
   * @throws UsageException when there is no token for that server
   */
  BerthClient connect(CliEnvironment env) {
    CredentialStore store = new CredentialStore(env.configDirectory());
    Optional<CredentialStore.Credentials> saved = store.load();
    URI server = url(env, saved);
    String chosen =
        Optional.ofNullable(token)
            .filter(t -> !t.isEmpty())
            .or(() -> env.variable(TOKEN_VARIABLE))
            .or(
                () ->
                    saved
                        .filter(s -> sameServer(s.url(), server))
                        .map(CredentialStore.Credentials::token))
            .orElseThrow(
                () ->
                    new UsageException(
                        "no token for "
                            + server
                            + ": run 'berth login --url "
                            + server
                            + " --token TOKEN' (or paste the login URL the server printed), or"
                            + " set BERTH_TOKEN"));
    return BerthClient.create(server.toString(), chosen);
  }

  private static boolean sameServer(String savedUrl, URI server) {
    try {
      return BerthClient.normalize(savedUrl).equals(server);
    } catch (IllegalArgumentException e) {
      return false;
    }
  }
}

package dev.berth.cli;

import dev.berth.client.BerthClient;
import dev.berth.client.SessionQuery;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code berth login}: checks a token against the server ({@code GET /api/v1/sessions?limit=1}) and
 * saves the URL and token for the other commands ({@link CredentialStore}). Takes the token from
 * {@code --token}, from stdin with {@code --token -}, or with the URL from the login URL the server
 * printed at its first start ({@code http://HOST:PORT/login?token=…}).
 */
@Command(
    name = "login",
    mixinStandardHelpOptions = true,
    versionProvider = BerthCommand.Version.class,
    description = {
      "Checks a token and saves it, with the server's URL, for the other commands.",
      "berth login --url URL --token TOKEN; --token - reads the token from stdin; or paste the"
          + " login URL the server printed: berth login 'http://127.0.0.1:8080/login?token=…'."
          + " Saved in $XDG_CONFIG_HOME/berth/credentials (else ~/.config/berth/credentials),"
          + " readable by you only."
    })
final class LoginCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin ConnectionOptions connection;

  @Parameters(
      arity = "0..1",
      paramLabel = "LOGIN-URL",
      description = "The login URL the server printed (http://HOST:PORT/login?token=…).")
  @Nullable String loginUrl;

  @Override
  public Integer call() {
    CliEnvironment env = ((BerthCommand) spec.root().userObject()).environment();
    CredentialStore store = new CredentialStore(env.configDirectory());
    URI server;
    String token;
    if (loginUrl != null) {
      if (connection.url != null) {
        throw new UsageException("give either a login URL or --url, not both");
      }
      LoginUrl parsed = LoginUrl.parse(loginUrl);
      server = parsed.server();
      token = parsed.token().or(() -> Optional.ofNullable(connection.token)).orElse(null);
    } else {
      server = connection.url(env, Optional.empty());
      token = connection.token;
    }
    if ("-".equals(token)) {
      token = readToken(env);
    }
    if (token == null || token.isBlank()) {
      token = env.variable(ConnectionOptions.TOKEN_VARIABLE).orElse(null);
    }
    if (token == null || token.isBlank()) {
      throw new UsageException(
          "no token: pass --token TOKEN, --token - to read it from stdin, or the login URL the"
              + " server printed");
    }
    try (BerthClient client = BerthClient.create(server.toString(), token.strip())) {
      client.listSessions(SessionQuery.all().limit(1));
    }
    store.save(new CredentialStore.Credentials(server.toString(), token.strip()));
    PrintWriter out = spec.commandLine().getOut();
    out.println("Logged in to " + server + "; credentials saved in " + store.file() + ".");
    out.flush();
    return ErrorReporter.OK;
  }

  private static @Nullable String readToken(CliEnvironment env) {
    try {
      String line =
          new BufferedReader(new InputStreamReader(env.stdin(), StandardCharsets.UTF_8)).readLine();
      return line == null ? null : line.strip();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the token from stdin: " + e.getMessage(), e);
    }
  }

  /** A login URL split into the server's base URL and its token. */
  record LoginUrl(URI server, Optional<String> token) {

    static LoginUrl parse(String text) {
      URI uri;
      try {
        uri = URI.create(text.strip());
      } catch (IllegalArgumentException e) {
        throw new UsageException("'" + text + "' is not a URL");
      }
      String path = uri.getRawPath() == null ? "" : uri.getRawPath();
      if (path.endsWith("/login")) {
        path = path.substring(0, path.length() - "/login".length());
      }
      Optional<String> token = Optional.empty();
      if (uri.getRawQuery() != null) {
        for (String pair : uri.getRawQuery().split("&")) {
          if (pair.startsWith("token=")) {
            token =
                Optional.of(URLDecoder.decode(pair.substring(6), StandardCharsets.UTF_8))
                    .filter(t -> !t.isBlank());
          }
        }
      }
      try {
        return new LoginUrl(
            BerthClient.normalize(uri.getScheme() + "://" + uri.getRawAuthority() + path), token);
      } catch (IllegalArgumentException e) {
        throw new UsageException(Objects.requireNonNullElse(e.getMessage(), e.toString()));
      }
    }
  }
}

package dev.berth.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.berth.server.BerthServer;
import dev.berth.server.ServerConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The published OpenAPI document describes exactly the routes the server answers. */
class OpenApiRoutesTest {

  private static final String TOKEN = "o".repeat(40);

  @TempDir Path dataDir;

  @Test
  void everyServedRouteIsInTheSpecAndEverySpecRouteIsServed() throws Exception {
    try (BerthServer server =
        new BerthServer(
                new ServerConfig("127.0.0.1", 0, dataDir).withAdminToken(Optional.of(TOKEN)))
            .start()) {
      Set<OpenApiSpec.Route> served = server.routes();
      Set<OpenApiSpec.Route> published = OpenApiSpec.load().routes();

      assertThat(served).containsExactlyInAnyOrderElementsOf(published);

      HttpResponse<String> yaml =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(
                          URI.create("http://127.0.0.1:" + server.port() + "/api/v1/openapi.yaml"))
                      .header("Authorization", "Bearer " + TOKEN)
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(yaml.statusCode()).isEqualTo(200);
      assertThat(yaml.body()).isEqualTo(OpenApiSpec.load().yaml());
    }
  }
}

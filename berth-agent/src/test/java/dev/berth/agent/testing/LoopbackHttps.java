package dev.berth.agent.testing;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * An HTTPS server on loopback, not yet started, with a self-signed certificate for 127.0.0.1 that
 * the JDK's keytool makes: the test providers' upstream, which the credential proxy only reaches
 * over {@code https} and trusts through {@code caCertificate}.
 */
public record LoopbackHttps(HttpsServer server, Path caCertificate) {

  private static final String PASSWORD = "changeit";

  /** Makes the key and certificate in {@code directory}, their files named after {@code name}. */
  public static LoopbackHttps create(Path directory, String name) throws Exception {
    Path keystore = directory.resolve(name + ".p12");
    Path pem = directory.resolve(name + "-ca.pem");
    keytool(
        keystore,
        "-genkeypair",
        "-keyalg",
        "EC",
        "-dname",
        "CN=127.0.0.1",
        "-ext",
        "SAN=ip:127.0.0.1",
        "-validity",
        "2");
    keytool(keystore, "-exportcert", "-rfc", "-file", pem.toString());
    KeyStore store = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(keystore)) {
      store.load(in, PASSWORD.toCharArray());
    }
    KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keys.init(store, PASSWORD.toCharArray());
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(keys.getKeyManagers(), null, null);
    HttpsServer server =
        HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setHttpsConfigurator(new HttpsConfigurator(tls));
    return new LoopbackHttps(server, pem);
  }

  private static void keytool(Path keystore, String... command)
      throws IOException, InterruptedException {
    List<String> argv =
        new ArrayList<>(
            List.of(Path.of(System.getProperty("java.home"), "bin", "keytool").toString()));
    argv.addAll(List.of(command));
    argv.addAll(
        List.of(
            "-alias",
            "provider",
            "-keystore",
            keystore.toString(),
            "-storepass",
            PASSWORD,
            "-storetype",
            "PKCS12"));
    Process process = new ProcessBuilder(argv).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (process.waitFor() != 0) {
      throw new IOException(String.join(" ", argv) + " failed: " + output);
    }
  }
}

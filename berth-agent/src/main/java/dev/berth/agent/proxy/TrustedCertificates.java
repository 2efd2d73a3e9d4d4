package dev.berth.agent.proxy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;
import org.jspecify.annotations.Nullable;

/**
 * The TLS trust of a provider's upstream: the system's CAs, and the profile's own CA when it has
 * one (a private gateway, or the tests' fake provider).
 */
final class TrustedCertificates {

  private TrustedCertificates() {}

  static SSLContext context(Optional<Path> extraCa) {
    try {
      List<X509TrustManager> managers = new ArrayList<>();
      managers.add(managerOf(null));
      if (extraCa.isPresent()) {
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        int i = 0;
        try (InputStream in = Files.newInputStream(extraCa.get())) {
          for (Certificate certificate :
              CertificateFactory.getInstance("X.509").generateCertificates(in)) {
            store.setCertificateEntry("ca-" + i++, certificate);
          }
        }
        if (i == 0) {
          throw new IllegalArgumentException(
              "the provider's CA file " + extraCa.get() + " holds no PEM certificate");
        }
        managers.add(managerOf(store));
      }
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, new TrustManager[] {new AnyOf(managers)}, null);
      return context;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalStateException(
          "cannot set up the provider's TLS trust: " + e.getMessage(), e);
    }
  }

  private static X509TrustManager managerOf(@Nullable KeyStore store)
      throws GeneralSecurityException {
    TrustManagerFactory factory =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init(store);
    for (TrustManager manager : factory.getTrustManagers()) {
      if (manager instanceof X509TrustManager x509) {
        return x509;
      }
    }
    throw new GeneralSecurityException("no X.509 trust manager");
  }

  /** Trusts a server that any of its managers trusts. */
  private record AnyOf(List<X509TrustManager> managers) implements X509TrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType)
        throws CertificateException {
      throw new CertificateException("the credential proxy authenticates no clients");
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType)
        throws CertificateException {
      CertificateException last = new CertificateException("no trust manager");
      for (X509TrustManager manager : managers) {
        try {
          manager.checkServerTrusted(chain, authType);
          return;
        } catch (CertificateException e) {
          last = e;
        }
      }
      throw last;
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return managers.stream()
          .flatMap(m -> java.util.Arrays.stream(m.getAcceptedIssuers()))
          .toArray(X509Certificate[]::new);
    }
  }
}

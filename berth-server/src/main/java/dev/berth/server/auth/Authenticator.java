package dev.berth.server.auth;

import dev.berth.core.tenant.Principal;
import dev.berth.core.tenant.ServiceAccountReview;
import dev.berth.core.tenant.TenantDirectory;
import dev.berth.core.tenant.TokenDigest;
import dev.berth.core.tenant.TokenRecord;
import java.security.MessageDigest;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Resolves a request's token to its {@link Principal}. The token comes from the {@code
 * Authorization: Bearer <token>} header, or, when there is no such header at all, from the web UI's
 * {@code berth_token} cookie; a header that is present but malformed is refused, never passed over
 * for the cookie.
 *
 * <p>With a {@link ServiceAccountReview}, a token that is neither the administrator's nor a
 * tenant's, and has the form of a JSON Web Token, is a Kubernetes service account token: the
 * cluster says whose it is, and the tenant that lists that service account is the principal.
 * Berth's own tokens are never sent to the cluster.
 *
 * <p>Only digests are kept and compared. The presented token is hashed once; the administrator's
 * digest is compared with {@link MessageDigest#isEqual}, whose time does not depend on where the
 * bytes differ, and tenant tokens are found by looking up the digest, so what the lookup's timing
 * could reveal is about a SHA-256 output the caller cannot steer, not about a stored token. Thread-
 * safe.
 */
public final class Authenticator {

  private static final Pattern BEARER = Pattern.compile("(?i)Bearer +(\\S+)");

  private final byte[] adminDigest;
  private final TenantDirectory directory;
  private final Optional<ServiceAccountReview> serviceAccounts;

  /** Berth's own tokens only. */
  public Authenticator(String adminToken, TenantDirectory directory) {
    this(adminToken, directory, Optional.empty());
  }

  /**
   * @param adminToken the administrator's token (see {@link AdminToken}); only its digest is kept
   * @param directory where tenant tokens, and the tenants listing service accounts, are looked up
   * @param serviceAccounts where service account tokens are checked, if they are accepted
   */
  public Authenticator(
      String adminToken,
      TenantDirectory directory,
      Optional<ServiceAccountReview> serviceAccounts) {
    Objects.requireNonNull(adminToken, "adminToken");
    this.adminDigest = TokenDigest.of(adminToken).bytes();
    this.directory = Objects.requireNonNull(directory, "directory");
    this.serviceAccounts = Objects.requireNonNull(serviceAccounts, "serviceAccounts");
  }

  /**
   * The principal of a request.
   *
   * @param authorizationHeader the {@code Authorization} header's value, if the request had one
   * @param cookieToken the {@code berth_token} cookie's value, if the request had one
   * @throws UnauthenticatedException when neither carries a known token, or the header is not of
   *     the form {@code Bearer <token>}
   */
  public Principal authenticate(
      Optional<String> authorizationHeader, Optional<String> cookieToken) {
    Objects.requireNonNull(authorizationHeader, "authorizationHeader");
    Objects.requireNonNull(cookieToken, "cookieToken");
    if (authorizationHeader.isPresent()) {
      return authenticateToken(bearerToken(authorizationHeader.get()));
    }
    if (cookieToken.isPresent()) {
      return authenticateToken(cookieToken.get());
    }
    throw new UnauthenticatedException("the request has no Authorization header");
  }

  /**
   * The principal of a bare token, such as the one {@code GET /login?token=} sets as a cookie.
   *
   * @throws UnauthenticatedException when the token is neither the admin token nor a tenant's, nor
   *     a service account token the cluster vouches for and a tenant lists
   * @throws IdentityUnavailableException when the token could only be a service account's and the
   *     cluster could not be asked
   */
  public Principal authenticateToken(String token) {
    Objects.requireNonNull(token, "token");
    if (!Tokens.isBearerToken(token)) {
      throw new UnauthenticatedException("the token is empty, too long or has invalid characters");
    }
    TokenDigest presented = TokenDigest.of(token);
    if (MessageDigest.isEqual(presented.bytes(), adminDigest)) {
      return Principal.ADMIN;
    }
    Optional<TokenRecord> tenantToken = directory.findToken(presented);
    if (tenantToken.isPresent()) {
      return Principal.tenant(tenantToken.get().tenant());
    }
    if (serviceAccounts.isPresent() && Tokens.looksLikeJwt(token)) {
      return serviceAccount(serviceAccounts.get().review(token));
    }
    throw new UnauthenticatedException(
        "the token is not the admin token nor a tenant token (never issued, or revoked)");
  }

  private Principal serviceAccount(ServiceAccountReview.Outcome outcome) {
    return switch (outcome) {
      case ServiceAccountReview.Authenticated a ->
          directory
              .tenantListing(a.account())
              .map(tenant -> Principal.tenant(tenant.id()))
              .orElseThrow(
                  () ->
                      new UnauthenticatedException(
                          "the cluster vouches for service account "
                              + a.account()
                              + ", but no tenant lists it (the admin adds it to a tenant's"
                              + " serviceAccounts with PUT /api/v1/admin/tenants/{tenant})"));
      case ServiceAccountReview.NotAuthenticated n ->
          throw new UnauthenticatedException(
              "the token is not Berth's, and the cluster does not vouch for it: " + n.why());
      case ServiceAccountReview.Unavailable u -> throw new IdentityUnavailableException(u.why());
    };
  }

  private static String bearerToken(String header) {
    Matcher m = BEARER.matcher(header.strip());
    if (!m.matches()) {
      throw new UnauthenticatedException("the Authorization header is not 'Bearer <token>'");
    }
    return m.group(1);
  }
}

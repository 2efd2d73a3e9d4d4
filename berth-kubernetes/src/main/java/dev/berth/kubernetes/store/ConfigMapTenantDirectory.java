package dev.berth.kubernetes.store;

import dev.berth.core.error.AlreadyExistsException;
import dev.berth.core.error.InvalidValueException;
import dev.berth.core.error.NotFoundException;
import dev.berth.core.session.TenantId;
import dev.berth.core.tenant.ServiceAccount;
import dev.berth.core.tenant.Tenant;
import dev.berth.core.tenant.TenantDirectory;
import dev.berth.core.tenant.TokenDigest;
import dev.berth.core.tenant.TokenRecord;
import dev.berth.kubernetes.store.KubeObjects.Edit;
import dev.berth.store.StoreJson;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The {@link TenantDirectory} on Kubernetes. Every tenant lives in one ConfigMap ({@code
 * berth-tenants-<installation>}, one data key {@code tenant.<id>} each, through {@link
 * TenantCodec}): a service account is listed by at most one tenant, and only a single object can be
 * checked and changed in one compare-and-swap, so the tenants share that object. Each API token has
 * a ConfigMap of its own ({@code berth-token-<installation>-<digest>}), whose create refuses a
 * second token of one digest.
 *
 * <p><b>Limit.</b> A ConfigMap holds at most 1 MiB, so the tenants' records together must stay
 * under {@value #BUDGET} bytes: some thousands of tenants listing few service accounts. A write
 * past it is refused, naming the way out (a SQL store).
 */
public final class ConfigMapTenantDirectory implements TenantDirectory {

  /** The bytes the tenants' keys and bodies may take, under the 1 MiB of a ConfigMap. */
  static final int BUDGET = 1_000_000;

  private static final String KIND = "tenants";
  private static final String TENANT_PREFIX = "tenant.";
  private static final String TOKEN_KIND = "token";
  private static final String TOKEN_KEY = "token";
  private static final Comparator<TokenRecord> OLDEST_FIRST =
      Comparator.comparing(TokenRecord::createdAt).thenComparing(t -> t.digest().hex());

  private final KubeObjects<ConfigMap> configMaps;
  private final Layout layout;
  private final StoreJson json;
  private final TenantCodec codec;
  private final String namespace;

  /**
   * @param namespace where the store's objects live; the service account needs get, list, create,
   *     update and delete on configmaps there
   * @param installation as the {@link ConfigMapSessionStore} of the namespace is opened with
   */
  public ConfigMapTenantDirectory(KubernetesClient client, String namespace, String installation) {
    this.configMaps = new KubeObjects<>(client, ConfigMap.class, "configmaps", namespace);
    this.layout = new Layout(installation);
    this.json = new StoreJson(Layout.REPAIR);
    this.codec = new TenantCodec(json);
    this.namespace = namespace;
  }

  @Override
  public Tenant upsertTenant(Tenant tenant) {
    return upsert(
        tenant,
        stored -> {
          tenant.serviceAccounts().forEach(a -> requireUnlisted(stored, a, tenant.id()));
          return find(stored, tenant.id()).map(t -> t.updatedBy(tenant)).orElse(tenant);
        });
  }

  @Override
  public Tenant upsertGrants(Tenant tenant) {
    return upsert(
        tenant,
        stored ->
            find(stored, tenant.id())
                .map(
                    t ->
                        t.updatedBy(
                            tenant
                                .withServiceAccounts(t.serviceAccounts())
                                .withApproval(t.approval())
                                .withDisconnect(t.disconnect())))
                .orElse(tenant.withServiceAccounts(Set.of())));
  }

  /** Writes what {@code next} makes of the stored tenants' ConfigMap, in one compare-and-swap. */
  private Tenant upsert(Tenant tenant, Function<ConfigMap, Tenant> next) {
    return configMaps.edit(
        layout.tenants(),
        current -> {
          ConfigMap cm = current.orElseGet(this::newTenants);
          Tenant written = next.apply(cm);
          ConfigMapData.of(cm).put(key(tenant.id()), codec.write(written));
          requireWithinBudget(cm, tenant.id());
          return Edit.write(cm, written);
        });
  }

  private void requireUnlisted(ConfigMap cm, ServiceAccount account, TenantId tenant) {
    for (Tenant other : all(cm)) {
      if (!other.id().equals(tenant) && other.serviceAccounts().contains(account)) {
        throw TenantDirectory.listedElsewhere(account, other.id(), tenant);
      }
    }
  }

  private void requireWithinBudget(ConfigMap cm, TenantId tenant) {
    long bytes = 0;
    for (Map.Entry<String, String> e : ConfigMapData.of(cm).entrySet()) {
      bytes +=
          e.getKey().getBytes(StandardCharsets.UTF_8).length
              + e.getValue().getBytes(StandardCharsets.UTF_8).length;
    }
    if (bytes > BUDGET) {
      throw new InvalidValueException(
          "tenant "
              + tenant
              + " cannot be written: the tenants share ConfigMap "
              + namespace
              + "/"
              + layout.tenants()
              + ", which would hold "
              + bytes
              + " bytes, more than the "
              + BUDGET
              + " a ConfigMap (1 MiB at most) leaves them; list fewer service accounts, or run"
              + " the installation on a SQL store (--store postgres://...)");
    }
  }

  @Override
  public Optional<Tenant> tenantListing(ServiceAccount account) {
    return tenantsConfigMap()
        .flatMap(
            cm -> all(cm).stream().filter(t -> t.serviceAccounts().contains(account)).findFirst());
  }

  @Override
  public Optional<Tenant> tenant(TenantId id) {
    return tenantsConfigMap().flatMap(cm -> find(cm, id));
  }

  @Override
  public List<Tenant> tenants() {
    return tenantsConfigMap().map(this::all).orElse(List.of());
  }

  @Override
  public void addToken(TokenRecord token) {
    if (tenant(token.tenant()).isEmpty()) {
      throw new NotFoundException("tenant " + token.tenant());
    }
    Map<String, String> labels = layout.selector(TOKEN_KIND);
    labels.put(Layout.TENANT, token.tenant().value());
    ConfigMap cm =
        ConfigMapData.single(
            layout.token(token.digest().hex()), labels, TOKEN_KEY, json.write(token));
    if (!configMaps.create(cm)) {
      throw new AlreadyExistsException("token with digest " + token.digest().hex());
    }
  }

  @Override
  public List<TokenRecord> tokens() {
    return configMaps.list(layout.selector(TOKEN_KIND)).stream()
        .map(this::readToken)
        .sorted(OLDEST_FIRST)
        .toList();
  }

  @Override
  public Optional<TokenRecord> findToken(TokenDigest digest) {
    return configMaps.get(layout.token(digest.hex())).map(this::readToken);
  }

  @Override
  public boolean revokeToken(TokenDigest digest) {
    return configMaps.delete(layout.token(digest.hex()));
  }

  private TokenRecord readToken(ConfigMap cm) {
    return ConfigMapData.read(
        cm, TOKEN_KEY, json, TokenRecord.class, t -> layout.token(t.digest().hex()));
  }

  private Optional<ConfigMap> tenantsConfigMap() {
    return configMaps.get(layout.tenants());
  }

  private Optional<Tenant> find(ConfigMap cm, TenantId id) {
    return Optional.ofNullable(ConfigMapData.of(cm).get(key(id)))
        .map(body -> read(cm, key(id), body));
  }

  /** Every tenant in the ConfigMap, ordered by id. */
  private List<Tenant> all(ConfigMap cm) {
    List<Tenant> tenants = new ArrayList<>();
    ConfigMapData.of(cm)
        .forEach(
            (key, body) -> {
              if (key.startsWith(TENANT_PREFIX)) {
                tenants.add(read(cm, key, body));
              }
            });
    tenants.sort(Comparator.comparing(t -> t.id().value()));
    return tenants;
  }

  private Tenant read(ConfigMap cm, String key, String body) {
    String subject = "tenant " + key + " in ConfigMap " + cm.getMetadata().getName();
    Tenant tenant = codec.read(subject, body);
    if (!key.equals(key(tenant.id()))) {
      throw json.corrupt(subject, "it holds tenant " + tenant.id());
    }
    return tenant;
  }

  private ConfigMap newTenants() {
    ConfigMap cm = new ConfigMap();
    cm.setMetadata(Layout.metadata(layout.tenants(), layout.selector(KIND)));
    return cm;
  }

  private static String key(TenantId id) {
    return TENANT_PREFIX + id.value();
  }
}

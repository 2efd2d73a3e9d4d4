package dev.berth.cli.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * The Kubernetes manifests under {@code deploy/} render with kustomize ({@code kubectl kustomize},
 * Debian package kubernetes-client, installed by bin/ensure-test-tools) and keep what
 * deploy/README.md promises: the replica counts, the control plane's restricted security context, a
 * data-plane ServiceAccount that nothing binds a role to, the control plane's Role holding exactly
 * the API calls Berth makes, and no Secret with a placeholder value in prod.
 *
 * <p>Both kustomize versions are supported, and render the same objects: v2.0.3, embedded in Debian
 * 12's kubectl 1.20 (kubernetes-client), and v5, embedded in kubectl >= 1.27. The tests render with
 * whichever kubectl is first on PATH; {@link #kustomizationsUseOnlyWhatKustomizeV2Knows} keeps the
 * kustomizations within what v2.0.3 reads even where only v5 is installed. v5 warns on stderr that
 * {@code bases} and {@code patchesStrategicMerge} are deprecated: that is expected, and only the
 * exit status counts.
 */
class KustomizeManifestsTest {

  private static final String CONTROL_PLANE = "berth-control-plane";
  private static final String DATA_PLANE = "berth-data-plane";

  /**
   * The control plane's Role, as "apiGroup/resource: verb": exactly the calls the Kubernetes
   * runtime and the store on Kubernetes make in its namespace (deploy/base/rbac.yaml explains
   * each), which RuntimeRbacTest (berth-kubernetes) records from their own requests and compares
   * with rbac.yaml. Widening the Role must change this list, in the same commit, on purpose.
   */
  private static final Set<String> ROLE_RULES =
      Set.of(
          "/pods: get",
          "/pods: list",
          "/pods: watch",
          "/pods: create",
          "/pods: delete",
          "/secrets: get",
          "/secrets: create",
          "/secrets: patch",
          "/secrets: delete",
          "networking.k8s.io/networkpolicies: get",
          "networking.k8s.io/networkpolicies: create",
          "networking.k8s.io/networkpolicies: patch",
          "networking.k8s.io/networkpolicies: delete",
          "/configmaps: get",
          "/configmaps: list",
          "/configmaps: create",
          "/configmaps: update",
          "/configmaps: delete",
          "coordination.k8s.io/leases: get",
          "coordination.k8s.io/leases: create",
          "coordination.k8s.io/leases: update");

  /** Values a Secret must never carry in prod: the marks of an example or a dev value. */
  private static final Pattern PLACEHOLDER =
      Pattern.compile("(?i)^$|change.?me|replace|placeholder|example|not.?secret|dev-|xxx|todo");

  /**
   * The fields of a kustomization that kustomize v2.0.3 (Debian 12's kubectl 1.20) reads: it fails
   * on any other ({@code labels}, {@code replicas}, {@code patches} as v5 means it, ...).
   */
  private static final Set<String> KUSTOMIZE_V2_FIELDS =
      Set.of(
          "apiVersion",
          "kind",
          "namespace",
          "namePrefix",
          "commonLabels",
          "commonAnnotations",
          "resources",
          "bases",
          "images",
          "configMapGenerator",
          "secretGenerator",
          "generatorOptions",
          "patchesStrategicMerge",
          "patchesJson6902",
          "configurations");

  /** A generator's fields in v2.0.3 ({@code env}, singular: v5 reads it too; not {@code envs}). */
  private static final Set<String> KUSTOMIZE_V2_GENERATOR_FIELDS =
      Set.of("name", "behavior", "literals", "files", "env", "type");

  private static final Pattern VARIABLE_REFERENCE = Pattern.compile("\\$\\(([A-Za-z_0-9]+)\\)");

  private static final Path ROOT = projectRoot();

  @ParameterizedTest
  @ValueSource(strings = {"base", "overlays/dev", "overlays/prod"})
  void rendersWithTheControlPlaneAndBothServiceAccounts(String dir, @TempDir Path tmp)
      throws Exception {
    List<Map<String, Object>> objects = render(dir, tmp);

    assertThat(has(objects, "Deployment", CONTROL_PLANE)).isTrue();
    assertThat(has(objects, "ServiceAccount", CONTROL_PLANE)).isTrue();
    assertThat(has(objects, "ServiceAccount", DATA_PLANE)).isTrue();
    assertThat(has(objects, "Service", "berth")).isTrue();
  }

  @Test
  void kustomizationsUseOnlyWhatKustomizeV2Knows() throws IOException {
    List<Path> kustomizations;
    try (var paths = Files.walk(ROOT.resolve("deploy"))) {
      kustomizations = paths.filter(path -> path.endsWith("kustomization.yaml")).sorted().toList();
    }
    assertThat(kustomizations).hasSize(3);
    for (Path file : kustomizations) {
      Path dir = file.getParent();
      String at = ROOT.relativize(file).toString();
      Map<String, Object> kustomization =
          map(new Load(LoadSettings.builder().build()).loadFromString(Files.readString(file)));
      assertThat(kustomization.keySet()).as("%s: fields", at).isSubsetOf(KUSTOMIZE_V2_FIELDS);
      // v2 takes only files under resources; a base (a directory) goes under bases.
      for (Object resource : list(kustomization.getOrDefault("resources", List.of()))) {
        assertThat(dir.resolve(String.valueOf(resource)))
            .as("%s: resource %s", at, resource)
            .isRegularFile();
      }
      for (Object base : list(kustomization.getOrDefault("bases", List.of()))) {
        assertThat(dir.resolve(String.valueOf(base)).resolve("kustomization.yaml"))
            .as("%s: base %s", at, base)
            .isRegularFile();
      }
      // Patch files, not inline patches; and no $patch: delete, which v2 keeps as a field.
      for (Object patch : list(kustomization.getOrDefault("patchesStrategicMerge", List.of()))) {
        assertThat(patch).as("%s: a patch is a file name", at).isInstanceOf(String.class);
        assertThat(dir.resolve(String.valueOf(patch))).as("%s: patch", at).isRegularFile();
        assertThat(Files.readString(dir.resolve(String.valueOf(patch))))
            .as("%s: patch %s", at, patch)
            .doesNotContain("$patch");
      }
      for (Map<String, Object> patch :
          maps(kustomization.getOrDefault("patchesJson6902", List.of()))) {
        assertThat(patch.keySet())
            .as("%s: JSON patch", at)
            .containsExactlyInAnyOrder("target", "path");
      }
      for (String generators : List.of("configMapGenerator", "secretGenerator")) {
        for (Map<String, Object> generator :
            maps(kustomization.getOrDefault(generators, List.of()))) {
          assertThat(generator.keySet())
              .as("%s: %s %s", at, generators, generator.get("name"))
              .isSubsetOf(KUSTOMIZE_V2_GENERATOR_FIELDS);
        }
      }
      for (Map<String, Object> image : maps(kustomization.getOrDefault("images", List.of()))) {
        assertThat(image.keySet())
            .as("%s: image %s", at, image.get("name"))
            .isSubsetOf("name", "newName", "newTag", "digest");
      }
    }
  }

  @Test
  void prodRunsTwoControlPlaneReplicasAndDevOne(@TempDir Path tmp) throws Exception {
    assertThat(
            map(find(render("overlays/prod", tmp), "Deployment", CONTROL_PLANE).get("spec"))
                .get("replicas"))
        .isEqualTo(2);
    assertThat(
            map(find(render("overlays/dev", tmp), "Deployment", CONTROL_PLANE).get("spec"))
                .get("replicas"))
        .isEqualTo(1);
  }

  @ParameterizedTest
  @ValueSource(strings = {"base", "overlays/dev", "overlays/prod"})
  void everyControlPlaneContainerRunsUnderTheRestrictedSecurityContext(
      String dir, @TempDir Path tmp) throws Exception {
    Map<String, Object> podSpec = podSpec(find(render(dir, tmp), "Deployment", CONTROL_PLANE));
    Map<String, Object> pod = map(podSpec.getOrDefault("securityContext", Map.of()));
    List<Map<String, Object>> containers = new ArrayList<>();
    containers.addAll(maps(podSpec.getOrDefault("initContainers", List.of())));
    containers.addAll(maps(podSpec.get("containers")));
    assertThat(containers).isNotEmpty();

    for (Map<String, Object> container : containers) {
      String name = String.valueOf(container.get("name"));
      Map<String, Object> own = map(container.getOrDefault("securityContext", Map.of()));
      // The container's setting, else the pod's where the pod level has one.
      assertThat(own.getOrDefault("runAsNonRoot", pod.get("runAsNonRoot")))
          .as("%s: runAsNonRoot", name)
          .isEqualTo(true);
      assertThat(own.getOrDefault("runAsUser", pod.get("runAsUser")))
          .as("%s: runAsUser", name)
          .isEqualTo(10001);
      assertThat(own.get("readOnlyRootFilesystem"))
          .as("%s: readOnlyRootFilesystem", name)
          .isEqualTo(true);
      assertThat(own.get("allowPrivilegeEscalation"))
          .as("%s: allowPrivilegeEscalation", name)
          .isEqualTo(false);
      assertThat(own.getOrDefault("privileged", false)).as("%s: privileged", name).isEqualTo(false);
      Map<String, Object> capabilities = map(own.getOrDefault("capabilities", Map.of()));
      assertThat(capabilities.get("drop"))
          .as("%s: capabilities.drop", name)
          .isEqualTo(List.of("ALL"));
      assertThat(capabilities.getOrDefault("add", List.of()))
          .as("%s: capabilities.add", name)
          .isEqualTo(List.of());
      Object seccomp = own.getOrDefault("seccompProfile", pod.get("seccompProfile"));
      assertThat(map(seccomp == null ? Map.of() : seccomp).get("type"))
          .as("%s: seccompProfile", name)
          .isEqualTo("RuntimeDefault");
    }

    // With a read-only root, the data directory and /tmp are emptyDir volumes.
    Map<String, Object> server =
        containers.stream()
            .filter(container -> "server".equals(container.get("name")))
            .findFirst()
            .orElseGet(() -> fail("no container named server"));
    Set<String> emptyDirs = new TreeSet<>();
    for (Map<String, Object> volume : maps(podSpec.get("volumes"))) {
      if (volume.containsKey("emptyDir")) {
        emptyDirs.add(String.valueOf(volume.get("name")));
      }
    }
    Set<String> emptyDirMounts = new TreeSet<>();
    for (Map<String, Object> mount : maps(server.get("volumeMounts"))) {
      if (emptyDirs.contains(String.valueOf(mount.get("name")))) {
        emptyDirMounts.add(String.valueOf(mount.get("mountPath")));
      }
    }
    assertThat(emptyDirMounts).contains("/var/lib/berth", "/tmp");
  }

  @ParameterizedTest
  @ValueSource(strings = {"base", "overlays/dev", "overlays/prod"})
  void theDataPlaneServiceAccountHasNoTokenAndNoBinding(String dir, @TempDir Path tmp)
      throws Exception {
    List<Map<String, Object>> objects = render(dir, tmp);

    assertThat(find(objects, "ServiceAccount", DATA_PLANE).get("automountServiceAccountToken"))
        .isEqualTo(false);
    for (Map<String, Object> binding : ofKind(objects, "RoleBinding", "ClusterRoleBinding")) {
      for (Map<String, Object> subject : maps(binding.getOrDefault("subjects", List.of()))) {
        String kind = String.valueOf(subject.get("kind"));
        String name = String.valueOf(subject.get("name"));
        assertThat(kind.equals("ServiceAccount") && name.equals(DATA_PLANE))
            .as("%s %s binds %s", binding.get("kind"), name(binding), DATA_PLANE)
            .isFalse();
        // Groups that hold every ServiceAccount (of a namespace) would bind it too.
        assertThat(
                kind.equals("Group")
                    && (name.startsWith("system:serviceaccounts")
                        || name.equals("system:authenticated")))
            .as("%s %s binds the group %s", binding.get("kind"), name(binding), name)
            .isFalse();
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"base", "overlays/dev", "overlays/prod"})
  void theControlPlaneMayMakeExactlyTheApiCallsItNeeds(String dir, @TempDir Path tmp)
      throws Exception {
    List<Map<String, Object>> objects = render(dir, tmp);

    assertThat(ofKind(objects, "Role"))
        .extracting(KustomizeManifestsTest::name)
        .containsExactly(CONTROL_PLANE);
    assertThat(ofKind(objects, "ClusterRole")).isEmpty();
    Set<String> granted = new TreeSet<>();
    for (Map<String, Object> rule : maps(find(objects, "Role", CONTROL_PLANE).get("rules"))) {
      assertThat(rule.keySet())
          .as("a rule names API groups, resources and verbs, no resourceNames or URLs")
          .containsExactlyInAnyOrder("apiGroups", "resources", "verbs");
      for (Object group : list(rule.get("apiGroups"))) {
        for (Object resource : list(rule.get("resources"))) {
          for (Object verb : list(rule.get("verbs"))) {
            granted.add(group + "/" + resource + ": " + verb);
          }
        }
      }
    }
    assertThat(granted).containsExactlyInAnyOrderElementsOf(ROLE_RULES);

    Map<String, Object> roleBinding = find(objects, "RoleBinding", CONTROL_PLANE);
    assertThat(ofKind(objects, "RoleBinding")).containsExactly(roleBinding);
    assertThat(map(roleBinding.get("roleRef")))
        .containsEntry("kind", "Role")
        .containsEntry("name", CONTROL_PLANE);
    assertThat(maps(roleBinding.get("subjects")))
        .extracting(s -> s.get("kind") + "/" + s.get("name"))
        .containsExactly("ServiceAccount/" + CONTROL_PLANE);

    // One cluster-scoped call, TokenReview create, through the built-in system:auth-delegator,
    // for the control plane's own service account only, and because the server is told to make it.
    assertThat(ofKind(objects, "ClusterRole")).as("no ClusterRole of Berth's own").isEmpty();
    Map<String, Object> delegator =
        find(objects, "ClusterRoleBinding", CONTROL_PLANE + "-auth-delegator");
    assertThat(ofKind(objects, "ClusterRoleBinding")).containsExactly(delegator);
    assertThat(map(delegator.get("roleRef")))
        .containsEntry("kind", "ClusterRole")
        .containsEntry("name", "system:auth-delegator");
    assertThat(maps(delegator.get("subjects")))
        .extracting(s -> s.get("kind") + "/" + s.get("name"))
        .containsExactly("ServiceAccount/" + CONTROL_PLANE);
    String namespace =
        String.valueOf(
            map(find(objects, "ServiceAccount", CONTROL_PLANE).get("metadata")).get("namespace"));
    if (!dir.equals("base")) {
      assertThat(maps(delegator.get("subjects")).getFirst())
          .as("the binding names the overlay's namespace, where the service account lives")
          .containsEntry("namespace", namespace);
    }
    Map<String, Object> server =
        maps(podSpec(find(objects, "Deployment", CONTROL_PLANE)).get("containers")).getFirst();
    assertThat(list(server.get("args")))
        .extracting(String::valueOf)
        .contains("--service-account-tokens");
  }

  @Test
  void prodCreatesNoSecretAndReadsTheOneTheOperatorCreated(@TempDir Path tmp) throws Exception {
    List<Map<String, Object>> objects = render("overlays/prod", tmp);

    for (Map<String, Object> secret : ofKind(objects, "Secret")) {
      for (Map.Entry<String, Object> entry : secretValues(secret).entrySet()) {
        assertThat(PLACEHOLDER.matcher(String.valueOf(entry.getValue())).find())
            .as("Secret %s key %s holds a placeholder", name(secret), entry.getKey())
            .isFalse();
      }
    }
    assertThat(ofKind(objects, "Secret"))
        .as("prod expects the operator's Secret berth-secrets; it creates no Secret itself")
        .isEmpty();
    Map<String, Object> server =
        maps(podSpec(find(objects, "Deployment", CONTROL_PLANE)).get("containers")).getFirst();
    assertThat(maps(server.get("envFrom")))
        .extracting(source -> map(source.getOrDefault("secretRef", Map.of())).get("name"))
        .contains("berth-secrets");
  }

  @Test
  void devCredentialsAreObviouslyDevValues(@TempDir Path tmp) throws Exception {
    List<Map<String, Object>> dev = render("overlays/dev", tmp);
    Map<String, Object> credentials =
        new TreeMap<>(secretValues(findByPrefix(dev, "Secret", "berth-secrets")));
    credentials
        .keySet()
        .retainAll(Set.of("BERTH_ADMIN_TOKEN", "PGPASSWORD", "AWS_SECRET_ACCESS_KEY"));
    credentials.putAll(secretValues(findByPrefix(dev, "Secret", "berth-dev-postgres")));
    credentials.put(
        "minio", secretValues(findByPrefix(dev, "Secret", "berth-dev-minio")).get("password"));

    // The agents' token key is base64: its decoded bytes carry the mark.
    byte[] agentTokenKey =
        Base64.getDecoder()
            .decode(
                String.valueOf(
                    secretValues(findByPrefix(dev, "Secret", "berth-secrets"))
                        .get("BERTH_AGENT_TOKEN_KEY")));
    credentials.put("BERTH_AGENT_TOKEN_KEY", new String(agentTokenKey, StandardCharsets.UTF_8));

    assertThat(credentials).hasSize(6);
    // The same marks that prod's check refuses, so that check is not vacuous.
    credentials.forEach(
        (key, value) ->
            assertThat(PLACEHOLDER.matcher(String.valueOf(value)).find())
                .as("dev %s is marked as a dev value", key)
                .isTrue());
    assertThat(String.valueOf(credentials.get("BERTH_ADMIN_TOKEN")))
        .as("the server refuses an admin token shorter than 32 characters")
        .hasSizeGreaterThanOrEqualTo(32);
    assertThat(agentTokenKey)
        .as("the server refuses a BERTH_AGENT_TOKEN_KEY of fewer than 32 bytes")
        .hasSizeGreaterThanOrEqualTo(32);
  }

  /**
   * The Kubernetes runtime gives every session pod a NetworkPolicy that admits exactly the pods
   * labelled so (berth-server's SessionPlacement.CONTROL_PLANE_LABELS), as does the base's
   * berth-sessions policy: the control plane's pods must carry these labels, or no agent answers.
   */
  @ParameterizedTest
  @ValueSource(strings = {"base", "overlays/dev", "overlays/prod"})
  void theControlPlanePodsCarryTheLabelsTheSessionPoliciesAdmit(String dir, @TempDir Path tmp)
      throws Exception {
    Map<String, Object> template =
        map(map(find(render(dir, tmp), "Deployment", CONTROL_PLANE).get("spec")).get("template"));

    assertThat(map(map(template.get("metadata")).get("labels")))
        .containsEntry("app.kubernetes.io/name", "berth")
        .containsEntry("app.kubernetes.io/component", "control-plane");
  }

  @Test
  void prodPinsBothImages(@TempDir Path tmp) throws Exception {
    List<Map<String, Object>> objects = render("overlays/prod", tmp);

    List<String> images = new ArrayList<>();
    for (Map<String, Object> container :
        maps(podSpec(find(objects, "Deployment", CONTROL_PLANE)).get("containers"))) {
      images.add(String.valueOf(container.get("image")));
    }
    images.add(String.valueOf(configData(objects).get("BERTH_AGENT_IMAGE")));
    for (String image : images) {
      String last = image.substring(image.lastIndexOf('/') + 1);
      assertThat(last.contains(":") || image.contains("@sha256:"))
          .as("%s carries a tag or digest", image)
          .isTrue();
      assertThat(image).as("%s is pinned", image).doesNotEndWith(":latest");
    }
  }

  @Test
  void everyVariableTheServerArgumentsUseIsProvided(@TempDir Path tmp) throws Exception {
    // prod: the Secret's keys are those the operator is told to create.
    Set<String> exampleKeys = new TreeSet<>();
    for (String line :
        Files.readAllLines(ROOT.resolve("deploy/overlays/prod/berth-secrets.env.example"))) {
      if (!line.isBlank() && !line.startsWith("#")) {
        exampleKeys.add(line.substring(0, line.indexOf('=')));
      }
    }
    assertThat(exampleKeys)
        .contains(
            "BERTH_ADMIN_TOKEN",
            "BERTH_AGENT_TOKEN_KEY",
            "PGPASSWORD",
            "AWS_ACCESS_KEY_ID",
            "AWS_SECRET_ACCESS_KEY");
    assertArgumentsResolve(render("overlays/prod", tmp), exampleKeys);

    // dev: its generated berth-secrets has exactly the documented keys.
    List<Map<String, Object>> dev = render("overlays/dev", tmp);
    Map<String, Object> devSecret = findByPrefix(dev, "Secret", "berth-secrets");
    assertThat(secretValues(devSecret).keySet()).containsExactlyInAnyOrderElementsOf(exampleKeys);
    assertArgumentsResolve(dev, exampleKeys);
  }

  private static void assertArgumentsResolve(
      List<Map<String, Object>> objects, Set<String> secretKeys) {
    Map<String, Object> server =
        maps(podSpec(find(objects, "Deployment", CONTROL_PLANE)).get("containers")).getFirst();
    Set<String> provided = new TreeSet<>(secretKeys);
    provided.addAll(configData(objects).keySet());
    for (Map<String, Object> env : maps(server.getOrDefault("env", List.of()))) {
      provided.add(String.valueOf(env.get("name")));
    }
    for (Object argument : list(server.get("args"))) {
      Matcher reference = VARIABLE_REFERENCE.matcher(String.valueOf(argument));
      while (reference.find()) {
        assertThat(provided)
            .as("the variable of argument %s", argument)
            .contains(reference.group(1));
      }
    }
  }

  private static Map<String, Object> configData(List<Map<String, Object>> objects) {
    return map(findByPrefix(objects, "ConfigMap", "berth-config").get("data"));
  }

  private static Map<String, Object> secretValues(Map<String, Object> secret) {
    Map<String, Object> values = new TreeMap<>();
    for (Map.Entry<String, Object> entry : map(secret.getOrDefault("data", Map.of())).entrySet()) {
      values.put(
          entry.getKey(),
          new String(
              Base64.getMimeDecoder().decode(String.valueOf(entry.getValue())),
              StandardCharsets.UTF_8));
    }
    values.putAll(map(secret.getOrDefault("stringData", Map.of())));
    return values;
  }

  /** {@code kubectl kustomize deploy/<dir>}: the rendered objects, or a failure with its stderr. */
  private static List<Map<String, Object>> render(String dir, Path tmp)
      throws IOException, InterruptedException {
    Path stderr = Files.createTempFile(tmp, "kubectl", ".err");
    Process process =
        new ProcessBuilder(kubectl(), "kustomize", ROOT.resolve("deploy").resolve(dir).toString())
            .redirectError(stderr.toFile())
            .start();
    process.getOutputStream().close();
    String yaml = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      fail("kubectl kustomize deploy/%s did not finish within 60 s", dir);
    }
    if (process.exitValue() != 0) {
      // The kubectl and its kustomize, for a failure with one of the two supported versions.
      Process version = new ProcessBuilder(kubectl(), "version", "--client").start();
      String versions = new String(version.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      version.waitFor(30, TimeUnit.SECONDS);
      fail(
          "kubectl kustomize deploy/%s failed (exit %d): %s(%s)",
          dir, process.exitValue(), Files.readString(stderr), versions.strip());
    }
    List<Map<String, Object>> objects = new ArrayList<>();
    for (Object document : new Load(LoadSettings.builder().build()).loadAllFromString(yaml)) {
      if (document != null) {
        objects.add(map(document));
      }
    }
    assertThat(objects).as("deploy/%s renders objects", dir).isNotEmpty();
    return objects;
  }

  private static String kubectl() {
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
      Path candidate = Path.of(dir.isEmpty() ? "." : dir, "kubectl");
      if (Files.isExecutable(candidate)) {
        return candidate.toString();
      }
    }
    return fail(
        "kubectl is not installed (Debian package kubernetes-client; bin/ensure-test-tools"
            + " installs it)");
  }

  private static Map<String, Object> podSpec(Map<String, Object> workload) {
    return map(map(map(workload.get("spec")).get("template")).get("spec"));
  }

  private static List<Map<String, Object>> ofKind(
      List<Map<String, Object>> objects, String... kinds) {
    List<Map<String, Object>> found = new ArrayList<>();
    for (Map<String, Object> object : objects) {
      if (List.of(kinds).contains(String.valueOf(object.get("kind")))) {
        found.add(object);
      }
    }
    return found;
  }

  /** The object of that kind and exact name. */
  private static Map<String, Object> find(
      List<Map<String, Object>> objects, String kind, String name) {
    for (Map<String, Object> object : ofKind(objects, kind)) {
      if (name(object).equals(name)) {
        return object;
      }
    }
    return fail("no %s named %s in the rendered manifests", kind, name);
  }

  private static boolean has(List<Map<String, Object>> objects, String kind, String name) {
    return ofKind(objects, kind).stream().anyMatch(object -> name(object).equals(name));
  }

  /** The generated object of that kind whose name is {@code prefix} plus kustomize's hash. */
  private static Map<String, Object> findByPrefix(
      List<Map<String, Object>> objects, String kind, String prefix) {
    for (Map<String, Object> object : ofKind(objects, kind)) {
      if (name(object).equals(prefix)
          || name(object).matches(Pattern.quote(prefix) + "-[a-z0-9]{10}")) {
        return object;
      }
    }
    return fail("no %s named %s in the rendered manifests", kind, prefix);
  }

  private static String name(Map<String, Object> object) {
    return String.valueOf(map(object.get("metadata")).get("name"));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object value) {
    assertThat(value).isInstanceOf(Map.class);
    return (Map<String, Object>) value;
  }

  private static List<?> list(Object value) {
    assertThat(value).isInstanceOf(List.class);
    return (List<?>) value;
  }

  private static List<Map<String, Object>> maps(Object value) {
    List<Map<String, Object>> maps = new ArrayList<>();
    for (Object element : list(value)) {
      maps.add(map(element));
    }
    return maps;
  }

  private static Path projectRoot() {
    Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath();
    while (dir != null && !Files.exists(dir.resolve("deploy/base/kustomization.yaml"))) {
      dir = dir.getParent();
    }
    if (dir == null) {
      throw new IllegalStateException(
          "deploy/base/kustomization.yaml not found above " + System.getProperty("user.dir"));
    }
    return dir;
  }
}

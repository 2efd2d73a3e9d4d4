package dev.berth.kubernetes.store;

import dev.berth.core.error.InvalidValueException;
import dev.berth.core.execution.ExecutionId;
import dev.berth.core.session.SessionId;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The names, labels and annotations of the store's objects in one installation. Names follow the Go
 * platform ({@code session-<id>}, {@code berth-lease-<id>}); every object carries the {@link
 * #MANAGED_BY} and {@link #INSTALLATION} labels so that one installation's listings never see
 * another's in a shared namespace, and a {@link #KIND} label so that a listing asks for one kind.
 */
record Layout(String installation) {

  static final String MANAGED_BY = "app.kubernetes.io/managed-by";
  static final String INSTALLATION = "berth.dev/installation";
  static final String SESSION = "berth.dev/session";
  static final String KIND = "berth.dev/kind";
  static final String TENANT = "berth.dev/tenant";
  static final String PHASE = "berth.dev/phase";
  static final String DELETED = "berth.dev/deleted";
  static final String UNFINISHED_OPERATIONS = "berth.dev/unfinished-operations";
  static final String SEQUENCE = "berth.dev/sequence";

  /** What an operator does about an object the store cannot read. */
  static final String REPAIR =
      "repair the object with kubectl edit, or delete it and restore it from a backup";

  /** Annotation: the highest fencing token a session's writes were accepted under. */
  static final String FENCE = "berth.dev/fence";

  /** Annotation: a Lease's fencing token, the highest ever issued for its session. */
  static final String TOKEN = "berth.dev/fencing-token";

  /** Annotation: a held Lease's exact expiry (ISO-8601), authoritative over its whole seconds. */
  static final String EXPIRES_AT = "berth.dev/expires-at";

  /**
   * A DNS label short enough that {@code berth-audit-<installation>-<19 digits>} stays a valid
   * object name and the installation a valid label value.
   */
  private static final Pattern NAME = Pattern.compile("[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?");

  Layout {
    if (!NAME.matcher(installation).matches()) {
      throw new InvalidValueException(
          "installation must be 1-40 lowercase letters, digits or inner '-' (it is part of object"
              + " names and label values), was \""
              + installation
              + "\"");
    }
  }

  static String session(SessionId id) {
    return "session-" + id.value();
  }

  static String lease(SessionId id) {
    return "berth-lease-" + id.value();
  }

  static String execution(ExecutionId id) {
    return "execution-" + id.value();
  }

  String auditEvent(long sequence) {
    return "berth-audit-" + installation + "-" + String.format("%019d", sequence);
  }

  /** The ConfigMap holding the highest audit sequence known to be taken (a hint, see AuditLog). */
  String auditHead() {
    return "berth-audit-" + installation + "-head";
  }

  /**
   * The ConfigMap naming the installation whose records the namespace holds: found before the
   * installation is known, so its name is fixed, and a namespace holds one installation's store.
   */
  static final String INSTALLATION_RECORD = "berth-installation";

  /** The ConfigMap holding every tenant of the installation. */
  String tenants() {
    return "berth-tenants-" + installation;
  }

  /** The ConfigMap of one API token, named by its digest. */
  String token(String digestHex) {
    return "berth-token-" + installation + "-" + digestHex;
  }

  /** The ConfigMap of one approval ({@code <session>:<suffix>}, both hex). */
  static String approval(String approvalId) {
    return "approval-" + approvalId.replace(':', '-');
  }

  /** The Lease of a replica duty. */
  String duty(String duty) {
    return "berth-duty-" + installation + "-" + duty;
  }

  /** The Lease that admits one tenant's sessions one process at a time. */
  String admission(String tenant) {
    return "berth-admission-" + installation + "-" + tenant;
  }

  /** The ConfigMap recording the holders of a claim on the store. */
  String claim(String key) {
    return "berth-claim-" + installation + "-" + key;
  }

  /** The labels that select this installation's objects of {@code kind}. */
  Map<String, String> selector(String kind) {
    Map<String, String> labels = new HashMap<>();
    labels.put(MANAGED_BY, "berth");
    labels.put(INSTALLATION, installation);
    labels.put(KIND, kind);
    return labels;
  }

  /** The labels that select this installation's objects of {@code kind} for {@code session}. */
  Map<String, String> selector(String kind, SessionId session) {
    Map<String, String> labels = selector(kind);
    labels.put(SESSION, session.value());
    return labels;
  }

  /** The annotations of {@code object}, changeable in place (an empty map when it had none). */
  static Map<String, String> annotations(HasMetadata object) {
    ObjectMeta meta = object.getMetadata();
    if (meta.getAnnotations() == null) {
      meta.setAnnotations(new HashMap<>());
    }
    return meta.getAnnotations();
  }

  /** New metadata for the object {@code name} carrying {@code labels}. */
  static ObjectMeta metadata(String name, Map<String, String> labels) {
    return new ObjectMetaBuilder().withName(name).withLabels(new HashMap<>(labels)).build();
  }
}

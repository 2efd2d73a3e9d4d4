package dev.berth.kubernetes.store;

import dev.berth.core.error.InvalidValueException;
import dev.berth.core.session.SessionId;
import dev.berth.core.store.AuditEvent;
import dev.berth.kubernetes.store.KubeObjects.Edit;
import dev.berth.store.CorruptRecordException;
import dev.berth.store.RecordSessionStore;
import dev.berth.store.StoreJson;
import io.fabric8.kubernetes.api.model.ConfigMap;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The audit log, one ConfigMap per event ({@code berth-audit-<installation>-<sequence>}, labelled
 * with its session and sequence).
 *
 * <p><b>Sequences without gaps a reader could step over.</b> An event takes its sequence by
 * creating the ConfigMap of that number: a taken name answers 409 and the writer tries the next. A
 * writer tries {@code n} only once it knows {@code n - 1} is taken (it created it, was refused it,
 * or read it from the head below), so the taken sequences are always {@code 1..max} with no hole,
 * and a reader that saw {@code n} never later finds an event below {@code n} appear. A counter
 * raised before the create would not give that: its {@code n + 1} could be created before its
 * {@code n}, and a reader's cursor would pass {@code n} by.
 *
 * <p>The head ConfigMap ({@link Layout#auditHead()}) records the highest sequence known taken, so a
 * writer starts near the top instead of probing from 1; it is raised by compare-and-swap after each
 * create and may lag (a writer that stopped in between), which only costs the next writer a few
 * refused creates.
 */
final class AuditLog implements RecordSessionStore.AuditTrail {

  static final String KIND = "audit";
  private static final String KEY = "event";
  private static final String HEAD_KEY = "sequence";

  private final KubeObjects<ConfigMap> configMaps;
  private final Layout layout;
  private final StoreJson json;

  /** The highest sequence this process knows to be taken. */
  private final AtomicLong taken = new AtomicLong();

  AuditLog(KubeObjects<ConfigMap> configMaps, Layout layout, StoreJson json) {
    this.configMaps = configMaps;
    this.layout = layout;
    this.json = json;
  }

  @Override
  public AuditEvent append(AuditEvent event) {
    long next = Math.max(taken.get(), head()) + 1;
    for (int tried = 0; tried < KubeObjects.ATTEMPTS; tried++, next++) {
      AuditEvent numbered = event.withSequence(next);
      boolean created = configMaps.create(configMap(numbered));
      taken.accumulateAndGet(next, Math::max);
      if (created) {
        raiseHead(next);
        return numbered;
      }
    }
    throw new KubernetesStoreException(
        "audit sequences "
            + (next - KubeObjects.ATTEMPTS)
            + " to "
            + (next - 1)
            + " were all taken while appending; the head ConfigMap "
            + layout.auditHead()
            + " lags far behind: set its data key "
            + HEAD_KEY
            + " to the highest sequence taken");
  }

  @Override
  public List<AuditEvent> events(SessionId session, long after, int limit) {
    return configMaps.list(layout.selector(KIND, session)).stream()
        .map(this::read)
        .filter(e -> e.sequence() > after)
        .sorted(Comparator.comparingLong(AuditEvent::sequence))
        .limit(limit)
        .toList();
  }

  /**
   * Every session's events above {@code after}, in sequence order: read from every event of the
   * installation (the API server cannot select a sequence range), so its cost grows with the log.
   */
  List<AuditEvent> allEvents(long after, int limit) {
    if (limit < 0) {
      throw new InvalidValueException("limit must not be negative, was " + limit);
    }
    return configMaps.list(layout.selector(KIND)).stream()
        .filter(cm -> sequenceLabel(cm) > after)
        .map(this::read)
        .filter(e -> e.sequence() > after)
        .sorted(Comparator.comparingLong(AuditEvent::sequence))
        .limit(limit)
        .toList();
  }

  /** The sequence label, to skip reading the events already seen; MAX_VALUE when unreadable. */
  private static long sequenceLabel(ConfigMap cm) {
    Map<String, String> labels = cm.getMetadata().getLabels();
    String value = labels == null ? null : labels.get(Layout.SEQUENCE);
    try {
      return value == null ? Long.MAX_VALUE : Long.parseLong(value);
    } catch (NumberFormatException e) {
      // The body decides, and reading it reports what is wrong.
      return Long.MAX_VALUE;
    }
  }

  private ConfigMap configMap(AuditEvent event) {
    Map<String, String> labels =
        event.sessionId().map(s -> layout.selector(KIND, s)).orElseGet(() -> layout.selector(KIND));
    labels.put(Layout.SEQUENCE, Long.toString(event.sequence()));
    return ConfigMapData.single(
        layout.auditEvent(event.sequence()), labels, KEY, json.write(event));
  }

  private AuditEvent read(ConfigMap cm) {
    return ConfigMapData.read(
        cm, KEY, json, AuditEvent.class, e -> layout.auditEvent(e.sequence()));
  }

  private long head() {
    return configMaps.get(layout.auditHead()).map(this::headSequence).orElse(0L);
  }

  /** Raises the head to {@code sequence} unless it is there already; whether it moved. */
  private boolean raiseHead(long sequence) {
    return configMaps.edit(
        layout.auditHead(),
        current -> {
          if (current.isPresent() && headSequence(current.get()) >= sequence) {
            return Edit.keep(false);
          }
          ConfigMap cm = current.orElseGet(this::newHead);
          ConfigMapData.of(cm).put(HEAD_KEY, Long.toString(sequence));
          return Edit.write(cm, true);
        });
  }

  private ConfigMap newHead() {
    ConfigMap cm = new ConfigMap();
    cm.setMetadata(Layout.metadata(layout.auditHead(), layout.selector("audit-head")));
    return cm;
  }

  private long headSequence(ConfigMap cm) {
    String value = ConfigMapData.of(cm).get(HEAD_KEY);
    try {
      return value == null ? 0 : Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new CorruptRecordException(
          "ConfigMap " + cm.getMetadata().getName(),
          "data key " + HEAD_KEY + " must be a number, was \"" + value + "\"",
          Layout.REPAIR,
          e);
    }
  }
}

package dev.berth.core.session;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * An immutable set of conditions, at most one per type, kept in type order. Setting a condition
 * keeps its {@code lastTransitionTime} when the status did not change, as Kubernetes does.
 */
public record Conditions(List<Condition> items) {

  public Conditions {
    items = List.copyOf(items);
    if (items.stream().map(Condition::type).distinct().count() != items.size()) {
      throw new IllegalArgumentException("conditions hold more than one entry of a type: " + items);
    }
  }

  public static Conditions none() {
    return new Conditions(List.of());
  }

  public Optional<Condition> get(ConditionType type) {
    return items.stream().filter(c -> c.type() == type).findFirst();
  }

  public ConditionStatus status(ConditionType type) {
    return get(type).map(Condition::status).orElse(ConditionStatus.UNKNOWN);
  }

  public boolean isTrue(ConditionType type) {
    return status(type) == ConditionStatus.TRUE;
  }

  /** These conditions with {@code type} set to the given status, reason and message. */
  public Conditions with(
      ConditionType type,
      ConditionStatus status,
      String reason,
      String message,
      Instant now,
      long generation) {
    Instant since =
        get(type).filter(c -> c.status() == status).map(Condition::lastTransitionTime).orElse(now);
    List<Condition> next = new ArrayList<>(items.size() + 1);
    items.stream().filter(c -> c.type() != type).forEach(next::add);
    next.add(new Condition(type, status, reason, message, since, generation));
    next.sort(Comparator.comparing(Condition::type));
    return new Conditions(next);
  }
}

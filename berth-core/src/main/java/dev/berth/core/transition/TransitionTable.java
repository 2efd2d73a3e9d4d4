package dev.berth.core.transition;

import dev.berth.core.error.IllegalTransitionException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The one table of allowed moves of an entity: for each state, the rule that governs it and the
 * events it accepts with the state each leads to. Anything not in the table is illegal, and {@link
 * #next} says so naming the subject, the state, the event and the rule.
 *
 * <p>Tables are built once, at class initialisation, and are immutable afterwards; {@link
 * Builder#build()} refuses a table that leaves any state without a rule so that adding a state
 * constant forces its author to write down what the state allows.
 *
 * <p>Transition coverage: in test JVMs of the build, every table records the moves it declares and
 * the moves taken through {@link #next} (queries through {@link #find} and {@link #allows} do not
 * count), and the build fails when a declared move is never taken by any test. Elsewhere recording
 * is off and costs one constant branch.
 *
 * @param <S> the state enum
 * @param <E> the event enum
 */
public final class TransitionTable<S extends Enum<S>, E extends Enum<E>> {

  /** One allowed move. */
  public record Transition<S, E>(S from, E event, S to) {}

  private final String entity;
  private final Map<S, String> rules;
  private final Map<S, Map<E, S>> moves;
  private final List<Transition<S, E>> transitions;

  private TransitionTable(
      String entity, Map<S, String> rules, Map<S, Map<E, S>> moves, List<Transition<S, E>> all) {
    this.entity = entity;
    this.rules = rules;
    this.moves = moves;
    this.transitions = Collections.unmodifiableList(all);
  }

  public static <S extends Enum<S>, E extends Enum<E>> Builder<S, E> of(
      String entity, Class<S> states, Class<E> events) {
    return new Builder<>(entity, states, events);
  }

  /**
   * The state that {@code event} leads to from {@code from}: the entity takes the move, and the
   * transition coverage check of the build counts it as taken.
   *
   * @throws IllegalTransitionException when the table has no such move
   */
  public S next(String subject, S from, E event) {
    S to =
        find(from, event)
            .orElseThrow(
                () ->
                    new IllegalTransitionException(
                        subject, from.name(), event.name(), ruleFor(from) + allowedSuffix(from)));
    if (TransitionRecorder.RECORDING) {
      TransitionRecorder.taken(this, new Transition<>(from, event, to));
    }
    return to;
  }

  /**
   * The state that {@code event} leads to from {@code from}, if the table allows the move. A query:
   * unlike {@link #next}, it does not count as taking the move for the transition coverage check.
   */
  public Optional<S> find(S from, E event) {
    return Optional.ofNullable(movesFrom(from).get(event));
  }

  public boolean allows(S from, E event) {
    return movesFrom(from).containsKey(event);
  }

  /** The rule text of a state, as written in the table. */
  public String ruleFor(S state) {
    return Objects.requireNonNull(rules.get(state)); // build() refused a table without it
  }

  /** Every allowed move, in declaration order (for coverage checks and diagrams). */
  public List<Transition<S, E>> transitions() {
    return transitions;
  }

  public String entity() {
    return entity;
  }

  private String allowedSuffix(S from) {
    var allowed = movesFrom(from).keySet();
    return allowed.isEmpty()
        ? " (" + from.name() + " accepts no events)"
        : " (" + from.name() + " accepts " + allowed + ")";
  }

  /** The moves from {@code from}: every state has them, as build() refused a table without. */
  private Map<E, S> movesFrom(S from) {
    return Objects.requireNonNull(moves.get(from));
  }

  /** Builds a table state by state; every state must be declared exactly once. */
  public static final class Builder<S extends Enum<S>, E extends Enum<E>> {
    private final String entity;
    private final Class<S> states;
    private final Map<S, String> rules;
    private final Map<S, Map<E, S>> moves;
    private final List<Transition<S, E>> all = new ArrayList<>();
    private final Class<E> events;
    private @Nullable S current;

    private Builder(String entity, Class<S> states, Class<E> events) {
      this.entity = entity;
      this.states = states;
      this.events = events;
      this.rules = new EnumMap<>(states);
      this.moves = new EnumMap<>(states);
    }

    /** Starts the section of {@code state}, with the rule that explains what it allows. */
    public Builder<S, E> state(S state, String rule) {
      Objects.requireNonNull(rule, "rule");
      if (rules.containsKey(state)) {
        throw new IllegalStateException(entity + " table declares " + state + " twice");
      }
      rules.put(state, rule);
      moves.put(state, new EnumMap<>(events));
      current = state;
      return this;
    }

    /** Allows {@code event} in the current state, leading to {@code to}. */
    public Builder<S, E> on(E event, S to) {
      if (current == null) {
        throw new IllegalStateException(entity + " table: on(" + event + ") before any state");
      }
      if (Objects.requireNonNull(moves.get(current)).put(event, to) != null) {
        throw new IllegalStateException(
            entity + " table declares " + event + " twice in " + current);
      }
      all.add(new Transition<>(current, event, to));
      return this;
    }

    public TransitionTable<S, E> build() {
      for (S state : states.getEnumConstants()) {
        if (!rules.containsKey(state)) {
          throw new IllegalStateException(entity + " table has no rule for state " + state);
        }
      }
      Map<S, Map<E, S>> frozen = new EnumMap<>(states);
      moves.forEach((state, byEvent) -> frozen.put(state, Collections.unmodifiableMap(byEvent)));
      TransitionTable<S, E> table = new TransitionTable<>(entity, Map.copyOf(rules), frozen, all);
      if (TransitionRecorder.RECORDING) {
        TransitionRecorder.declared(table);
      }
      return table;
    }
  }
}

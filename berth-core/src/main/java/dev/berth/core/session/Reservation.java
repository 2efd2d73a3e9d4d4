package dev.berth.core.session;

import dev.berth.core.transition.TransitionTable;

/**
 * The quota a session holds. It is released only once removal of the session's runtime was
 * confirmed; while contact is lost it is UNCERTAIN and still counts against the quota.
 */
public enum Reservation {
  HELD,
  UNCERTAIN,
  RELEASED;

  /** What happens to a reservation. */
  public enum Event {
    CONTACT_LOST,
    CONTACT_RESTORED,
    RELEASE,
    RESERVE
  }

  public static final TransitionTable<Reservation, Event> TABLE =
      TransitionTable.of("reservation", Reservation.class, Event.class)
          .state(HELD, "a held reservation is released only after runtime removal is confirmed")
          .on(Event.CONTACT_LOST, UNCERTAIN)
          .on(Event.RELEASE, RELEASED)
          .state(
              UNCERTAIN,
              "an uncertain reservation still counts against the quota until the runtime is"
                  + " observed again or confirmed gone")
          .on(Event.CONTACT_RESTORED, HELD)
          .on(Event.RELEASE, RELEASED)
          .state(RELEASED, "a released reservation must be reserved again before a new runtime")
          .on(Event.RESERVE, HELD)
          .build();

  /** Whether this reservation counts against the tenant's quota. */
  public boolean counts() {
    return this != RELEASED;
  }
}

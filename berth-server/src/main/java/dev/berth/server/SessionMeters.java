package dev.berth.server;

import dev.berth.core.session.Phase;
import dev.berth.core.session.Reservation;
import dev.berth.server.telemetry.CountGauges;
import dev.berth.server.telemetry.Telemetry;
import dev.berth.store.ControlPlaneStore;

/**
 * The gauges of the sessions in the store: how many are in each phase and hold each kind of
 * reservation, counted by the store when a scrape asks for them rather than kept up to date on
 * every write.
 */
final class SessionMeters {

  private SessionMeters() {}

  static void register(Telemetry telemetry, ControlPlaneStore store) {
    CountGauges<Phase> phases =
        new CountGauges<>(
            telemetry.registry(),
            new CountGauges.Meter(
                "berth.sessions", "Sessions, not deleted, by lifecycle phase", "phase"),
            Phase.class,
            store::countByPhase);
    CountGauges<Reservation> reservations =
        new CountGauges<>(
            telemetry.registry(),
            new CountGauges.Meter(
                "berth.reservations",
                "Quota reservations of sessions, not deleted, by state (uncertain ones count)",
                "state"),
            Reservation.class,
            store::countByReservation);
    telemetry.beforeScrape(phases::refresh);
    telemetry.beforeScrape(reservations::refresh);
  }
}

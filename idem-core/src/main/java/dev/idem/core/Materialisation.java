package dev.idem.core;

import dev.idem.core.recurrence.Occurrence;
import dev.idem.core.store.StoreTx;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Turns a schedule's next occurrence into a delivery row. Shared by the create path (an occurrence due
 * soon is written in the creating transaction) and the engine's materialiser. Safe under races: the
 * delivery insert is unique per (schedule, scheduled_for) and the cursor moves by compare-and-set.
 *
 * <p>An occurrence more than {@link #MISSED_AFTER} in the past was missed (downtime, a pause, a
 * materialiser that fell behind): the schedule's {@link CatchUp} policy decides what to send.
 */
public final class Materialisation {
    /** How late an occurrence may be materialised before it counts as missed. */
    public static final Duration MISSED_AFTER = Duration.ofMinutes(1);
    private static final int MAX_SCAN = 1_000_000;

    private Materialisation() {}

    /**
     * Materialises the schedule's pending occurrence when it is at or before {@code horizon}. With catch-up
     * policy {@code none}, skipping missed occurrences moves the cursor without writing a delivery.
     *
     * @return the delivery written, or empty when nothing was due, only missed occurrences were skipped, or
     *     another node won the race
     */
    public static Optional<Delivery> step(StoreTx tx, Schedule schedule, Instant horizon, IdGenerator ids, Instant now) {
        Instant due = schedule.nextFireAt();
        if (schedule.status() != ScheduleStatus.ACTIVE || due == null || due.isAfter(horizon)) return Optional.empty();
        Timing timing = schedule.definition().timing();
        Instant occurrence = due;
        if (timing instanceof Timing.Recurring r && due.isBefore(now.minus(MISSED_AFTER))) {
            Optional<Instant> caughtUp = catchUp(r, due, now);
            if (caughtUp.isEmpty()) {
                Instant next = timing.firstAfter(now.minusNanos(1)).orElse(null);
                tx.schedules().advanceCursor(schedule.id(), due, next, schedule.lastSequence(), now);
                return Optional.empty();
            }
            occurrence = caughtUp.get();
        }
        long sequence = schedule.lastSequence() + 1;
        Instant next = timing.firstAfter(occurrence).orElse(null);
        if (!tx.schedules().advanceCursor(schedule.id(), due, next, sequence, now)) return Optional.empty();
        Delivery delivery = Delivery.scheduled(ids.next("dlv"), schedule, occurrence, sequence, now);
        return tx.deliveries().insertIfAbsent(delivery) ? Optional.of(delivery) : Optional.empty();
    }

    /** The missed occurrence to send now, or empty to skip every missed one. */
    private static Optional<Instant> catchUp(Timing.Recurring r, Instant due, Instant now) {
        Instant from = due.minusNanos(1);
        return switch (r.catchUp()) {
            case NONE -> Optional.empty();
            case LATEST -> Optional.of(r.recurrence().latestIn(from, now).map(Occurrence::utc).orElse(due));
            case ALL -> {
                List<Occurrence> missed = r.recurrence().between(from, now, MAX_SCAN);
                yield Optional.of(missed.size() > CatchUp.MAX_ALL ? missed.get(missed.size() - CatchUp.MAX_ALL).utc() : due);
            }
        };
    }
}

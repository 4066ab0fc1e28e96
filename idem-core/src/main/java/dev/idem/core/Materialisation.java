package dev.idem.core;

import dev.idem.core.store.StoreTx;
import java.time.Instant;
import java.util.Optional;

/**
 * Turns a schedule's next occurrence into a delivery row. Shared by the create path (an occurrence due
 * soon is written in the creating transaction) and the engine's materialiser. Safe under races: the
 * delivery insert is unique per (schedule, scheduled_for) and the cursor moves by compare-and-set.
 */
public final class Materialisation {
    private Materialisation() {}

    /**
     * Materialises the schedule's pending occurrence when it is at or before {@code horizon}.
     *
     * @return the delivery written, or empty when nothing was due or another node won the race
     */
    public static Optional<Delivery> step(StoreTx tx, Schedule schedule, Instant horizon, IdGenerator ids, Instant now) {
        Instant due = schedule.nextFireAt();
        if (schedule.status() != ScheduleStatus.ACTIVE || due == null || due.isAfter(horizon)) return Optional.empty();
        long sequence = schedule.lastSequence() + 1;
        Instant next = schedule.definition().timing().firstAfter(due).orElse(null);
        if (!tx.schedules().advanceCursor(schedule.id(), due, next, sequence, now)) return Optional.empty();
        Delivery delivery = Delivery.scheduled(ids.next("dlv"), schedule, due, sequence, now);
        return tx.deliveries().insertIfAbsent(delivery) ? Optional.of(delivery) : Optional.empty();
    }
}

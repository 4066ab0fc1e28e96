package dev.idem.core;

import dev.idem.core.fanout.FanOutTarget;
import dev.idem.core.fanout.ScheduledFanOut;
import dev.idem.core.recurrence.Occurrence;
import dev.idem.core.store.ScheduleRepository.CursorMove;
import dev.idem.core.store.StoreTx;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Turns schedules' occurrences into delivery rows, in sets. Shared by the create path (a new schedule is written
 * with its cursor already past the occurrences it writes, and a one-shot's one occurrence is always written with
 * it) and the engine's materialiser (a page of schedules: one compare-and-set statement moves every cursor, one
 * multi-row insert writes every winner's occurrences). Safe under races: a cursor moves only from the value it was
 * read with, and a delivery is unique per (schedule, scheduled_for).
 *
 * <p>An occurrence more than {@link #MISSED_AFTER} in the past was missed (downtime, a materialiser that fell
 * behind): the schedule's {@link CatchUp} policy decides which to write. A schedule whose rule has ended stays
 * {@code active} while a delivery is pending; it is completed when the last one is final (see
 * {@link dev.idem.core.store.ScheduleRepository#completeIfFinished}).
 *
 * <p>A schedule with a fan-out target ({@link ScheduledFanOut}) is materialised only up to now, never ahead: each
 * due occurrence becomes a message fanned out to the endpoints subscribed at that moment.
 */
public final class Materialisation {
    /** How late an occurrence may be materialised before it counts as missed. */
    public static final Duration MISSED_AFTER = Duration.ofMinutes(1);
    /**
     * The most occurrences one schedule gets in one pass; a rule denser than this over the horizon continues in
     * the next page. Bounds a page's insert whatever the rules are (catch-up {@code all} writes up to
     * {@link CatchUp#MAX_ALL} missed ones plus the horizon's).
     */
    static final int MAX_PER_SCHEDULE = 1_000;

    private static final int MAX_SCAN = 1_000_000;

    private Materialisation() {}

    /**
     * What one schedule's pass writes: its deliveries and where its cursor moves.
     *
     * @param next the first occurrence not written, or null when the rule has ended
     */
    public record Plan(Schedule schedule, List<Delivery> deliveries, Instant next, long lastSequence) {
        /** The schedule with its cursor moved past what this plan writes. */
        public Schedule advanced(Instant now) {
            return schedule.withCursor(next, lastSequence, now);
        }

        boolean movesCursor() {
            return !java.util.Objects.equals(next, schedule.nextFireAt()) || !deliveries.isEmpty();
        }
    }

    /**
     * The plan for a schedule not yet stored: a one-shot's occurrence whatever its time (it never waits for the
     * materialiser), a rule's occurrences up to {@code horizon}. Write {@link Plan#advanced} and the deliveries.
     */
    public static Plan forNew(Schedule schedule, Instant horizon, IdGenerator ids, Instant now) {
        // a fan-out's occurrences are messages, written by the materialiser once due (subscribers as it fires)
        if (ScheduledFanOut.target(schedule).isPresent())
            return new Plan(schedule, List.of(), schedule.nextFireAt(), schedule.lastSequence());
        Instant until = schedule.definition().timing() instanceof Timing.Once once ? once.fireAt() : horizon;
        return plan(schedule, until, ids, now, new Successors());
    }

    /**
     * Materialises a page of stored schedules in the caller's transaction: moves each cursor that is still where
     * it was read (one statement), writes the winners' occurrences at or before {@code horizon} (one multi-row
     * insert), and completes the winners whose rule ended with nothing pending.
     *
     * @return the deliveries written
     */
    public static List<Delivery> materialise(
            StoreTx tx, List<Schedule> schedules, Instant horizon, IdGenerator ids, Instant now) {
        return materialise(tx, schedules, horizon, ids, now, OccurrenceTracing.NONE);
    }

    /**
     * As {@link #materialise(StoreTx, List, Instant, IdGenerator, Instant)}, giving each occurrence written the
     * creation context {@code tracing} makes (docs/tracing.md): kept with a plain occurrence's delivery
     * ({@link dev.idem.core.store.DeliveryTraceRepository}), with a fan-out occurrence's message on each endpoint's
     * one-shot.
     */
    public static List<Delivery> materialise(
            StoreTx tx,
            List<Schedule> schedules,
            Instant horizon,
            IdGenerator ids,
            Instant now,
            OccurrenceTracing tracing) {
        List<Plan> plans = new ArrayList<>();
        Successors successors = new Successors();
        for (Schedule s : schedules) {
            Plan p = plan(s, horizon, ids, now, successors);
            if (p.movesCursor()) plans.add(p);
        }
        if (plans.isEmpty()) return List.of();
        List<CursorMove> moves = new ArrayList<>(plans.size());
        for (Plan p : plans)
            moves.add(new CursorMove(p.schedule().id(), p.schedule().nextFireAt(), p.next(), p.lastSequence()));
        Set<String> won = tx.schedules().advanceCursors(moves, now);
        List<Delivery> written = new ArrayList<>();
        List<Delivery> fannedOut = new ArrayList<>();
        List<String> endedEmpty = new ArrayList<>();
        Map<String, TraceContext> traced = new HashMap<>();
        for (Plan p : plans) {
            if (!won.contains(p.schedule().id())) continue;
            Optional<FanOutTarget> target = ScheduledFanOut.target(p.schedule());
            if (target.isPresent())
                fannedOut.addAll(
                        ScheduledFanOut.fire(tx, ids, p.schedule(), target.get(), p.deliveries(), now, tracing));
            else {
                written.addAll(p.deliveries());
                if (tracing != OccurrenceTracing.NONE)
                    for (Delivery d : p.deliveries()) {
                        TraceContext t = tracing.occurrence(p.schedule(), d.scheduledFor(), d.id());
                        if (t != null) traced.put(d.id(), t);
                    }
            }
            // a fan-out has no deliveries of its own to wait for: it completes with its last occurrence
            if (p.next() == null && (p.deliveries().isEmpty() || target.isPresent()))
                endedEmpty.add(p.schedule().id());
        }
        tx.deliveries().insertAll(written);
        if (!traced.isEmpty()) tx.deliveryTraces().occurrences(traced);
        written.addAll(fannedOut);
        if (!endedEmpty.isEmpty()) tx.schedules().completeIfFinished(endedEmpty, now);
        return written;
    }

    /** The occurrences of {@code s} from its cursor up to {@code horizon}, after the catch-up policy. */
    static Plan plan(Schedule s, Instant horizon, IdGenerator ids, Instant now, Successors successors) {
        Instant due = s.nextFireAt();
        if (ScheduledFanOut.target(s).isPresent() && horizon.isAfter(now)) horizon = now;
        if (s.status() != ScheduleStatus.ACTIVE || due == null || due.isAfter(horizon))
            return new Plan(s, List.of(), due, s.lastSequence());
        Timing timing = s.definition().timing();
        Instant occurrence = due;
        if (timing instanceof Timing.Recurring r && due.isBefore(now.minus(MISSED_AFTER)))
            occurrence = catchUp(r, due, now);
        List<Delivery> out = new ArrayList<>();
        long sequence = s.lastSequence();
        while (occurrence != null && !occurrence.isAfter(horizon) && out.size() < MAX_PER_SCHEDULE) {
            out.add(Delivery.scheduled(ids.next("dlv"), s, occurrence, ++sequence, now));
            occurrence = successors.after(timing, occurrence);
        }
        return new Plan(s, List.copyOf(out), occurrence, sequence);
    }

    /**
     * The first occurrence to write when {@code due} was missed: the most recent missed one ({@code latest}), the
     * oldest of the {@link CatchUp#MAX_ALL} most recent ({@code all}), or the first not yet due ({@code none});
     * null when the rule ended among the skipped ones.
     */
    private static Instant catchUp(Timing.Recurring r, Instant due, Instant now) {
        Instant from = due.minusNanos(1);
        return switch (r.catchUp()) {
            case NONE -> r.firstAfter(now.minusNanos(1)).orElse(null);
            case LATEST ->
                r.recurrence().latestIn(from, now).map(Occurrence::utc).orElse(due);
            case ALL -> {
                List<Occurrence> missed = r.recurrence().between(from, now, MAX_SCAN);
                yield missed.size() > CatchUp.MAX_ALL
                        ? missed.get(missed.size() - CatchUp.MAX_ALL).utc()
                        : due;
            }
        };
    }

    /**
     * Next occurrences, each computed once per (rule, instant) within a pass: the schedules of a page that share a
     * rule (every tenant's {@code 0 9 * * *}) share the work. Computing a cron rule's next occurrence was the largest
     * part of a page's CPU before (see idem-engine/README.md, "Materialising in sets").
     */
    static final class Successors {
        private record Key(Timing timing, Instant after) {}

        private final Map<Key, Instant> memo = new HashMap<>();

        Instant after(Timing timing, Instant occurrence) {
            if (timing instanceof Timing.Once) return null;
            Key k = new Key(timing, occurrence);
            Instant next = memo.get(k);
            if (next == null && !memo.containsKey(k)) {
                next = timing.firstAfter(occurrence).orElse(null);
                memo.put(k, next);
            }
            return next;
        }
    }
}

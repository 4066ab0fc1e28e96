package dev.idem.core.outcome;

import dev.idem.core.Attempt;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.ScheduleStatus;
import dev.idem.core.store.DeliveryQueue;
import dev.idem.core.store.DeliveryQueue.Outcome;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * What a batch of outcomes does beyond its deliveries' rows, decided without a database. The store applies a batch in
 * one transaction in four steps, and asks this class at each:
 *
 * <ol>
 *   <li>{@link #toApply}: the outcome each delivery gets (the first one given for it); the store applies each while
 *       its lease holds, and says which were applied and to which schedule.
 *   <li>{@link #applied}: then the attempts to keep ({@link #attempts}, every one, those not applied marked stale) and
 *       the schedules to read under lock ({@link #schedules}, {@link #withFailures}, {@link #finalIn}).
 *   <li>{@link #effects}: given the schedules as read, each one's new failure counter and whether it pauses itself
 *       (auto-pause), which may now be completed, and what an operator hears ({@link DeliveryQueue.Completed}).
 *   <li>{@link AlertRules}: the alerts those facts raise.
 * </ol>
 */
public final class OutcomeBatch {
    /**
     * Statuses auto-pause applies to: a recurring schedule, and a one-shot whose delivery exists (it is
     * {@code completed} then, and pausing it stops its retries until resumed).
     */
    public static final Set<ScheduleStatus> PAUSABLE = Set.of(ScheduleStatus.ACTIVE, ScheduleStatus.COMPLETED);

    /**
     * Statuses of a schedule with an ended rule that a batch's outcomes may complete, or must lock so that a resume
     * waits for the batch (only an active one is completed).
     */
    public static final Set<ScheduleStatus> SETTLEABLE = Set.of(ScheduleStatus.ACTIVE, ScheduleStatus.PAUSED);

    /** Said on the attempt row of an outcome that was not applied, so a delivery's history never reads as two owners' successes. */
    public static final String STALE =
            "stale: recorded after the claim had passed to another node (lease expired, or node declared dead); not applied";

    private final List<Outcome> outcomes;
    private final Map<String, String> scheduleOfApplied;
    /** Each schedule's outcomes in order, true for a success. */
    private final Map<String, List<Boolean>> bySchedule = new LinkedHashMap<>();

    private final Set<String> finalIn = new HashSet<>();
    private final Set<String> withFailures = new HashSet<>();

    private OutcomeBatch(List<Outcome> outcomes, Map<String, String> scheduleOfApplied) {
        this.outcomes = List.copyOf(outcomes);
        this.scheduleOfApplied = Map.copyOf(scheduleOfApplied);
        for (Outcome o : this.outcomes) {
            String s = this.scheduleOfApplied.get(o.deliveryId());
            if (s == null) continue;
            bySchedule.computeIfAbsent(s, k -> new ArrayList<>()).add(o.newStatus() == DeliveryStatus.SUCCEEDED);
            if (o.newStatus() != DeliveryStatus.RETRYING) finalIn.add(s);
        }
        bySchedule.forEach((id, results) -> {
            if (results.contains(Boolean.FALSE)) withFailures.add(id);
        });
    }

    /**
     * The outcome applied to each delivery: the first one given for it (a later one for the same attempt is a
     * duplicate), sorted by delivery id, the order a store locks rows in.
     */
    public static List<Outcome> toApply(List<Outcome> outcomes) {
        Map<String, Outcome> first = new TreeMap<>();
        for (Outcome o : outcomes) first.putIfAbsent(o.deliveryId(), o);
        return new ArrayList<>(first.values());
    }

    /**
     * @param outcomes the batch, in the order given
     * @param scheduleOfApplied delivery id → schedule id of the deliveries whose outcome ({@link #toApply}) was applied
     */
    public static OutcomeBatch applied(List<Outcome> outcomes, Map<String, String> scheduleOfApplied) {
        return new OutcomeBatch(outcomes, scheduleOfApplied);
    }

    /** Whether no outcome was applied (every lease had passed): nothing more to do than keep the attempts. */
    public boolean nothingApplied() {
        return scheduleOfApplied.isEmpty();
    }

    /**
     * The attempts to keep, in the batch's order: every one (the request was sent, the receiver may have acted on it),
     * those whose outcome was not applied marked {@link #STALE}.
     */
    public List<Attempt> attempts() {
        return outcomes.stream()
                .map(o -> scheduleOfApplied.containsKey(o.deliveryId()) ? o.attempt() : stale(o.attempt()))
                .toList();
    }

    private static Attempt stale(Attempt a) {
        String error = a.error() == null ? STALE : STALE + "; " + a.error();
        return new Attempt(
                a.id(),
                a.deliveryId(),
                a.number(),
                a.startedAt(),
                a.durationMs(),
                a.statusCode(),
                error,
                a.responseBody());
    }

    /** The schedules of the applied outcomes. */
    public Set<String> schedules() {
        return Set.copyOf(bySchedule.keySet());
    }

    /**
     * Of {@link #schedules}, those with a failure in this batch: their counter changes whatever it was. A schedule that
     * only succeeded needs its counter at 0 and cannot pause, so a store may leave its row alone when it is 0 already
     * (with every delivery succeeding, the common case, the schedules are not touched at all).
     */
    public Set<String> withFailures() {
        return Set.copyOf(withFailures);
    }

    /**
     * Of {@link #schedules}, those of which a delivery became final (succeeded or dead): the only ones this batch may
     * complete, when their rule has ended ({@link #effects}).
     */
    public Set<String> finalIn() {
        return Set.copyOf(finalIn);
    }

    /**
     * A schedule as the store read it under lock, before this batch changed it.
     *
     * @param ruleEnded whether its rule has no occurrence left to materialise
     */
    public record Stored(int consecutiveFailures, int autoPauseAfter, ScheduleStatus status, boolean ruleEnded) {
        public Stored {
            Objects.requireNonNull(status, "status");
        }
    }

    /** A schedule's new failure counter, and whether it pauses itself ({@code paused_reason consecutive_failures}). */
    public record CounterChange(String scheduleId, int consecutiveFailures, boolean pause) {}

    /**
     * What the batch does to its schedules.
     *
     * @param counters the counters that change (and the pauses), in schedule id order
     * @param mayComplete the schedules that are completed now unless a delivery of theirs is still pending (which only
     *     the store can tell under its locks): a delivery of theirs became final, their rule has ended, and they are
     *     {@link #SETTLEABLE} (one this batch pauses stays paused)
     * @param completed what an operator hears: the deliveries applied, those now dead, the schedules now paused
     */
    public record Effects(List<CounterChange> counters, Set<String> mayComplete, DeliveryQueue.Completed completed) {
        public Effects {
            counters = List.copyOf(counters);
            mayComplete = Set.copyOf(mayComplete);
        }
    }

    /**
     * @param read the schedules the store read, by id: every one of {@link #withFailures}, and any other of
     *     {@link #schedules} whose counter is not 0 or that is in {@link #finalIn}; one left out is neither changed
     *     nor completed
     */
    public Effects effects(Map<String, Stored> read) {
        List<CounterChange> changes = new ArrayList<>();
        bySchedule.keySet().stream().sorted().forEach(id -> {
            Stored s = read.get(id);
            if (s == null) return;
            FailureStreak streak = FailureStreak.of(bySchedule.get(id));
            CounterChange next = new CounterChange(
                    id,
                    streak.apply(s.consecutiveFailures()),
                    PAUSABLE.contains(s.status()) && streak.reaches(s.consecutiveFailures(), s.autoPauseAfter()));
            if (next.pause() || next.consecutiveFailures() != s.consecutiveFailures()) changes.add(next);
        });
        Set<String> mayComplete = new HashSet<>();
        read.forEach((id, s) -> {
            if (finalIn.contains(id) && s.ruleEnded() && SETTLEABLE.contains(s.status())) mayComplete.add(id);
        });
        List<DeliveryQueue.Dead> dead = toApply(outcomes).stream()
                .filter(o -> o.newStatus() == DeliveryStatus.DEAD && scheduleOfApplied.containsKey(o.deliveryId()))
                .map(o -> new DeliveryQueue.Dead(
                        o.deliveryId(),
                        scheduleOfApplied.get(o.deliveryId()),
                        o.attempt().number(),
                        o.lastError()))
                .toList();
        List<DeliveryQueue.AutoPaused> paused = changes.stream()
                .filter(CounterChange::pause)
                .map(c -> new DeliveryQueue.AutoPaused(c.scheduleId(), c.consecutiveFailures()))
                .toList();
        List<String> applied = outcomes.stream()
                .map(Outcome::deliveryId)
                .filter(scheduleOfApplied::containsKey)
                .distinct()
                .toList();
        return new Effects(changes, mayComplete, new DeliveryQueue.Completed(applied, dead, paused));
    }
}

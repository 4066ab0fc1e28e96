package dev.idem.store.internal;

import dev.idem.core.Attempt;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.store.DeliveryQueue;
import dev.idem.core.store.DeliveryQueue.Outcome;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Applies a batch of outcomes in the caller's transaction: attempt rows (always kept), the fenced
 * delivery updates, then the schedules' failure counters. The counters' rows are locked in id order
 * before they change, so concurrent batches cannot deadlock on them.
 */
abstract class Completion {
    /**
     * Statuses auto-pause applies to: a recurring schedule, and a one-shot whose delivery exists (it is
     * {@code completed} then, and pausing it stops its retries until resumed).
     */
    static final java.util.Set<String> PAUSABLE = java.util.Set.of("active", "completed");

    /** Statuses of a schedule with an ended rule that a batch's outcomes may complete, or must lock (a resume waits). */
    static final java.util.Set<String> SETTLEABLE = java.util.Set.of("active", "paused");

    /**
     * {@link #SETTLEABLE} as an SQL condition on {@code status}, for the statements that find those schedules in the
     * database rather than in Java (built from the set so the two cannot drift; sorted so the text is the same in every
     * run, one prepared statement).
     */
    static final String SETTLEABLE_SQL = "status IN ("
            + SETTLEABLE.stream().sorted().map(s -> "'" + s + "'").collect(java.util.stream.Collectors.joining(", "))
            + ")";

    /**
     * The stored counter state of a locked schedule.
     *
     * @param pausable whether the schedule's status is one auto-pause applies to
     */
    record Counter(int consecutiveFailures, int autoPauseAfter, boolean pausable) {}

    /** The new counter state of a schedule after a batch. */
    record NewCounter(String scheduleId, int consecutiveFailures, boolean pause) {}

    /**
     * What {@link #lockCounters} read under its locks.
     *
     * @param counters the counters read, by schedule id
     * @param ended the schedules of {@code finalIn} whose rule has ended and that are active or paused: locked, and the
     *     only ones a batch may complete ({@link Settlement#ofLockedSchedules})
     */
    record Locked(Map<String, Counter> counters, Set<String> ended) {}

    /**
     * @param completed what was applied
     * @param ended the schedules {@link Settlement#ofLockedSchedules} decides next, their rows locked by this transaction
     */
    record Applied(DeliveryQueue.Completed completed, Set<String> ended) {}

    /**
     * @return what was applied (the deliveries in the outcomes' order, those now dead, the schedules now paused), and the
     *     locked schedules whose last delivery may have just become final
     */
    final Applied apply(Sql sql, String owner, List<Outcome> outcomes, long now) {
        List<Outcome> distinct = distinctById(outcomes);
        Map<String, String> scheduleOfApplied = updateDeliveries(sql, owner, distinct, now);
        insertAttempts(
                sql,
                outcomes.stream()
                        .map(o -> scheduleOfApplied.containsKey(o.deliveryId()) ? o : stale(o))
                        .toList());
        if (scheduleOfApplied.isEmpty()) return new Applied(DeliveryQueue.Completed.NONE, Set.of());
        Map<String, List<Boolean>> bySchedule = new LinkedHashMap<>();
        Set<String> finalIn = new java.util.HashSet<>();
        for (Outcome o : outcomes) {
            String s = scheduleOfApplied.get(o.deliveryId());
            if (s != null)
                bySchedule.computeIfAbsent(s, k -> new ArrayList<>()).add(o.newStatus() == DeliveryStatus.SUCCEEDED);
            if (s != null && o.newStatus() != DeliveryStatus.RETRYING) finalIn.add(s);
        }
        // A schedule that only succeeded in this batch needs its counter at 0 and cannot pause, so its row is read
        // and written only when the counter is not 0 already: with every delivery succeeding (the common case) the
        // schedules are not touched at all. All rows are still locked in one pass in id order (no deadlocks).
        Set<String> withFailures = new java.util.HashSet<>();
        bySchedule.forEach((id, results) -> {
            if (results.contains(Boolean.FALSE)) withFailures.add(id);
        });
        Locked locked = lockCounters(sql, bySchedule.keySet(), withFailures, finalIn);
        Map<String, Counter> stored = locked.counters();
        List<NewCounter> changes = new ArrayList<>();
        bySchedule.keySet().stream().sorted().forEach(id -> {
            Counter c = stored.get(id);
            if (c == null) return;
            FailureStreak streak = FailureStreak.of(bySchedule.get(id));
            NewCounter next = new NewCounter(
                    id,
                    streak.apply(c.consecutiveFailures()),
                    c.pausable() && streak.reaches(c.consecutiveFailures(), c.autoPauseAfter()));
            if (next.pause() || next.consecutiveFailures() != c.consecutiveFailures()) changes.add(next);
        });
        if (!changes.isEmpty()) updateCounters(sql, changes, now);
        // the outcome applied to a delivery is the first one given for it
        // (distinctById), the one updateDeliveries wrote
        List<DeliveryQueue.Dead> dead = distinct.stream()
                .filter(o -> o.newStatus() == DeliveryStatus.DEAD && scheduleOfApplied.containsKey(o.deliveryId()))
                .map(o -> new DeliveryQueue.Dead(
                        o.deliveryId(),
                        scheduleOfApplied.get(o.deliveryId()),
                        o.attempt().number(),
                        o.lastError()))
                .toList();
        List<DeliveryQueue.AutoPaused> paused = changes.stream()
                .filter(NewCounter::pause)
                .map(c -> new DeliveryQueue.AutoPaused(c.scheduleId(), c.consecutiveFailures()))
                .toList();
        return new Applied(
                new DeliveryQueue.Completed(
                        outcomes.stream()
                                .map(Outcome::deliveryId)
                                .filter(scheduleOfApplied::containsKey)
                                .distinct()
                                .toList(),
                        dead,
                        paused),
                locked.ended());
    }

    abstract void insertAttempts(Sql sql, List<Outcome> outcomes);

    /** Said on the attempt row of an outcome that was not applied, so a delivery's history never reads as two owners' successes. */
    static final String STALE =
            "stale: recorded after the claim had passed to another node (lease expired, or node declared dead); not applied";

    /**
     * The attempt of an outcome that is not applied is still kept (the request was sent, the receiver may have acted on
     * it), marked stale.
     */
    private static Outcome stale(Outcome o) {
        Attempt a = o.attempt();
        String error = a.error() == null ? STALE : STALE + "; " + a.error();
        return new Outcome(
                o.deliveryId(),
                new Attempt(
                        a.id(),
                        a.deliveryId(),
                        a.number(),
                        a.startedAt(),
                        a.durationMs(),
                        a.statusCode(),
                        error,
                        a.responseBody()),
                o.newStatus(),
                o.nextAttemptAt(),
                o.lastError());
    }

    /**
     * Sets each delivery's new state where {@code owner} still holds this attempt's lease.
     *
     * @return delivery id → schedule id of the rows changed
     */
    abstract Map<String, String> updateDeliveries(Sql sql, String owner, List<Outcome> outcomes, long now);

    /**
     * Locks in id order and reads the counters of the schedules in {@code withFailures}, and of the others in
     * {@code scheduleIds} whose counter is not 0; the rest are neither read nor locked, except those of {@code finalIn}
     * (a delivery of theirs became final) whose rule has ended and that are active or paused: those are returned as
     * {@link Locked#ended}, for {@link Settlement#ofLockedSchedules} to complete under the same locks. Taking them in this
     * one id-ordered pass keeps two nodes' batches from locking the same two schedules in opposite orders, and saves
     * the settlement its own lookups (which deliveries' schedules, and which of those have ended).
     */
    abstract Locked lockCounters(Sql sql, Set<String> scheduleIds, Set<String> withFailures, Set<String> finalIn);

    abstract void updateCounters(Sql sql, List<NewCounter> changes, long now);

    /** The response body as stored: at most {@link Attempt#RESPONSE_BODY_LIMIT} characters. */
    static String truncatedBody(Attempt a) {
        String body = a.responseBody();
        return body != null && body.length() > Attempt.RESPONSE_BODY_LIMIT
                ? body.substring(0, Attempt.RESPONSE_BODY_LIMIT)
                : body;
    }

    /** The first outcome of each delivery, sorted by delivery id (the lock order). */
    private static List<Outcome> distinctById(List<Outcome> outcomes) {
        Map<String, Outcome> first = new java.util.TreeMap<>();
        for (Outcome o : outcomes) first.putIfAbsent(o.deliveryId(), o);
        return new ArrayList<>(first.values());
    }
}

package dev.idem.store.internal;

import dev.idem.core.Attempt;
import dev.idem.core.ScheduleStatus;
import dev.idem.core.outcome.OutcomeBatch;
import dev.idem.core.store.DeliveryQueue.Outcome;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The statements that apply a batch of outcomes in the caller's transaction ({@link OutcomeWriter} runs them in order,
 * {@link OutcomeBatch} decides what they write): the fenced delivery updates, the attempt rows (always kept), then the
 * schedules' failure counters. The schedules' rows are locked in id order before they change, so concurrent batches
 * cannot deadlock on them. One subclass per way of sending many rows: arrays on PostgreSQL, JDBC batches on SQLite.
 */
abstract class Completion {
    /**
     * {@link OutcomeBatch#SETTLEABLE} as an SQL condition on {@code status}, for the statements that find those
     * schedules in the database rather than in Java (built from the set so the two cannot drift; sorted so the text is
     * the same in every run, one prepared statement).
     */
    static final String SETTLEABLE_SQL = "status IN ("
            + OutcomeBatch.SETTLEABLE.stream()
                    .map(s -> "'" + s.wireName() + "'")
                    .sorted()
                    .collect(Collectors.joining(", "))
            + ")";

    /** Inserts the attempts (one already stored is left as it is). */
    abstract void insertAttempts(Sql sql, List<Attempt> attempts);

    /**
     * Sets each delivery's new state where {@code owner} still holds this attempt's lease.
     *
     * @param endpointOf filled with delivery id → endpoint id of the rows changed that are a message's deliveries
     * @return delivery id → schedule id of the rows changed
     */
    abstract Map<String, String> updateDeliveries(
            Sql sql, String owner, List<Outcome> outcomes, long now, Map<String, String> endpointOf);

    /**
     * Locks in id order and reads the schedules in {@code withFailures}, and of the others in {@code scheduleIds}
     * those whose counter is not 0 or that are in {@code finalIn} with an ended rule and a {@link OutcomeBatch#SETTLEABLE}
     * status (the schedules {@link Settlement#ofLockedSchedules} may complete under the same locks); the rest may be
     * neither read nor locked. Taking them in this one id-ordered pass keeps two nodes' batches from locking the same
     * two schedules in opposite orders, and saves the settlement its own lookups.
     */
    abstract Map<String, OutcomeBatch.Stored> lockSchedules(
            Sql sql, Set<String> scheduleIds, Set<String> withFailures, Set<String> finalIn);

    abstract void updateCounters(Sql sql, List<OutcomeBatch.CounterChange> changes, long now);

    /** A schedule row's state as {@link #lockSchedules} read it. */
    static OutcomeBatch.Stored stored(int consecutiveFailures, int autoPauseAfter, String status, boolean ruleEnded) {
        return new OutcomeBatch.Stored(consecutiveFailures, autoPauseAfter, ScheduleStatus.parse(status), ruleEnded);
    }

    /** The response body as stored: at most {@link Attempt#RESPONSE_BODY_LIMIT} characters. */
    static String truncatedBody(Attempt a) {
        String body = a.responseBody();
        return body != null && body.length() > Attempt.RESPONSE_BODY_LIMIT
                ? body.substring(0, Attempt.RESPONSE_BODY_LIMIT)
                : body;
    }
}

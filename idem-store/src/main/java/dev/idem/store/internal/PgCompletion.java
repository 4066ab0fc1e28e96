package dev.idem.store.internal;

import dev.idem.core.Attempt;
import dev.idem.core.Schedule;
import dev.idem.core.outcome.OutcomeBatch;
import dev.idem.core.store.DeliveryQueue.Outcome;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Completion on PostgreSQL: each step is one set-based statement over arrays ({@code unnest}), so a
 * batch costs a handful of round trips whatever its size.
 */
final class PgCompletion extends Completion {
    @Override
    void insertAttempts(Sql sql, List<Attempt> attempts) {
        int n = attempts.size();
        String[] ids = new String[n];
        String[] deliveryIds = new String[n];
        Integer[] numbers = new Integer[n];
        Long[] startedAt = new Long[n];
        Long[] durations = new Long[n];
        Integer[] statusCodes = new Integer[n];
        String[] errors = new String[n];
        String[] bodies = new String[n];
        for (int i = 0; i < n; i++) {
            Attempt a = attempts.get(i);
            ids[i] = a.id();
            deliveryIds[i] = a.deliveryId();
            numbers[i] = a.number();
            startedAt[i] = Sql.millis(a.startedAt());
            durations[i] = a.durationMs();
            statusCodes[i] = a.statusCode();
            errors[i] = a.error();
            bodies[i] = truncatedBody(a);
        }
        sql.update(
                "INSERT INTO attempts (" + Rows.ATTEMPT
                        + ") SELECT * FROM unnest(?::text[], ?::text[], ?::int4[], ?::int8[], "
                        + "?::int8[], ?::int4[], ?::text[], ?::text[]) ON CONFLICT DO NOTHING",
                sql.array("text", ids),
                sql.array("text", deliveryIds),
                sql.array("int4", numbers),
                sql.array("int8", startedAt),
                sql.array("int8", durations),
                sql.array("int4", statusCodes),
                sql.array("text", errors),
                sql.array("text", bodies));
    }

    @Override
    Map<String, String> updateDeliveries(
            Sql sql, String owner, List<Outcome> outcomes, long now, Map<String, String> endpointOf) {
        int n = outcomes.size();
        String[] ids = new String[n];
        String[] statuses = new String[n];
        Long[] next = new Long[n];
        String[] errors = new String[n];
        Integer[] numbers = new Integer[n];
        for (int i = 0; i < n; i++) {
            Outcome o = outcomes.get(i);
            ids[i] = o.deliveryId();
            statuses[i] = o.newStatus().wireName();
            next[i] = Sql.millis(o.nextAttemptAt());
            errors[i] = o.lastError();
            numbers[i] = o.attempt().number();
        }
        Map<String, String> scheduleOf = new HashMap<>();
        // d.id = ANY(ids) keeps the deliveries side to this batch's rows whatever the statistics say
        String update = "UPDATE deliveries d SET status = o.status, next_attempt_at = o.next_at, "
                + "lease_owner = NULL, lease_expires_at = NULL, last_error = o.err, updated_at = ? "
                + "FROM unnest(?::text[], ?::text[], ?::int8[], ?::text[], ?::int4[]) AS o(id, status, next_at, err, num) "
                + "WHERE d.id = ANY(?::text[]) AND d.id = o.id AND d.status = 'delivering' AND d.lease_owner = ? "
                + "AND d.attempt_count = o.num RETURNING d.id, d.schedule_id, d.endpoint_id";
        Sql.RowMapper<String> row = rs -> {
            if (rs.getString(3) != null) endpointOf.put(rs.getString(1), rs.getString(3));
            return scheduleOf.put(rs.getString(1), rs.getString(2));
        };
        Object[] args = {
            now,
            sql.array("text", ids),
            sql.array("text", statuses),
            sql.array("int8", next),
            sql.array("text", errors),
            sql.array("int4", numbers),
            sql.array("text", ids),
            owner
        };
        if (n < HASH_JOIN_FROM) sql.query(update, row, args);
        else withoutNestedLoops(sql, () -> sql.queryPlannedNow(PLANNED_NOW + update, row, args));
        return scheduleOf;
    }

    @Override
    Map<String, OutcomeBatch.Stored> lockSchedules(
            Sql sql, Set<String> scheduleIds, Set<String> withFailures, Set<String> finalIn) {
        Map<String, OutcomeBatch.Stored> out = new HashMap<>();
        // the rows the settlement completes are taken in this same ordered pass; FOR UPDATE re-reads a row changed
        // while it waited, so next_fire_at and status are as the lock holder left them
        sql.query(
                "SELECT id, consecutive_failures, auto_pause_after, status, next_fire_at IS NULL FROM schedules "
                        + "WHERE id = ANY(?::text[]) AND (consecutive_failures <> 0 OR id = ANY(?::text[]) OR "
                        + "(id = ANY(?::text[]) AND next_fire_at IS NULL AND " + SETTLEABLE_SQL + ")) "
                        + "ORDER BY id FOR UPDATE",
                rs -> out.put(rs.getString(1), stored(rs.getInt(2), rs.getInt(3), rs.getString(4), rs.getBoolean(5))),
                sql.array("text", scheduleIds.toArray(new String[0])),
                sql.array("text", withFailures.toArray(new String[0])),
                sql.array("text", finalIn.toArray(new String[0])));
        return out;
    }

    @Override
    void updateCounters(Sql sql, List<OutcomeBatch.CounterChange> changes, long now) {
        if (changes.isEmpty()) return;
        int n = changes.size();
        String[] ids = new String[n];
        Integer[] counts = new Integer[n];
        Boolean[] pause = new Boolean[n];
        for (int i = 0; i < n; i++) {
            ids[i] = changes.get(i).scheduleId();
            counts[i] = changes.get(i).consecutiveFailures();
            pause[i] = changes.get(i).pause();
        }
        String update = "UPDATE schedules s SET consecutive_failures = o.cf, "
                + "status = CASE WHEN o.pause THEN 'paused' ELSE s.status END, "
                + "paused_reason = CASE WHEN o.pause THEN '" + Schedule.PAUSED_BY_FAILURES
                + "' ELSE s.paused_reason END, "
                + "updated_at = ? FROM unnest(?::text[], ?::int4[], ?::bool[]) AS o(id, cf, pause) "
                + "WHERE s.id = ANY(?::text[]) AND s.id = o.id";
        Object[] args = {
            now, sql.array("text", ids), sql.array("int4", counts), sql.array("bool", pause), sql.array("text", ids)
        };
        if (n < HASH_JOIN_FROM) sql.update(update, args);
        else withoutNestedLoops(sql, () -> sql.updatePlannedNow(PLANNED_NOW + update, args));
    }

    /**
     * Runs a large batch's join of a table with the batch's arrays with nested loops turned off, planned at this run.
     * Prepared once and run often, the statement gets a generic plan from PostgreSQL, which cannot see the arrays'
     * length and, with statistics taken while few rows were {@code delivering} (autovacuum off, or not yet run in a
     * burst), estimates one table row and picks a nested loop that rescans the whole array for every table row. Measured
     * in a 100,000 burst on 2026-11-26 (`idem-bench/runs/2026-11-26T1331-quiet-before.txt`, 300 deliveries/s with a
     * backend at 100% CPU): 9.4 s for one completion of 500 against 9,500 claimed rows; 0.15–0.6 s with the table side cut
     * to the batch by {@code ANY} (auto_explain: 249,500 rows removed by the join filter); 4 ms as a hash join. A
     * {@code SET LOCAL} alone does not reach a plan the cache already holds (planner settings are not part of its key), so
     * the statement is planned at each run ({@link Sql#queryPlannedNow}: a parse and plan, well under a millisecond for a
     * batch of hundreds). Small batches (a steady rate) keep the cached plan: n² is small there.
     */
    private static void withoutNestedLoops(Sql sql, Runnable statement) {
        sql.update("SET LOCAL enable_nestloop = off");
        statement.run();
        sql.update("SET LOCAL enable_nestloop = DEFAULT");
    }

    private static final int HASH_JOIN_FROM = 32;

    /**
     * Makes the large batch's statement text differ from the small one's: the driver keeps one server-side statement per
     * text, and once the small batches' text was prepared there, a run of that text asked to be planned now still used
     * the prepared statement's cached plan (auto_explain showed the nested loop with {@code $n} parameters).
     */
    private static final String PLANNED_NOW = "/* planned now */ ";
}

package dev.idem.store.internal;

import dev.idem.core.Attempt;
import dev.idem.core.Schedule;
import dev.idem.core.outcome.OutcomeBatch;
import dev.idem.core.store.DeliveryQueue.Outcome;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Completion by JDBC batches, one row per statement: right for SQLite, where a statement costs no round trip. */
final class BatchCompletion extends Completion {
    @Override
    void insertAttempts(Sql sql, List<Attempt> attempts) {
        sql.batch(
                "INSERT INTO attempts (" + Rows.ATTEMPT + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                attempts.stream()
                        .map(a -> {
                            return new Object[] {
                                a.id(),
                                a.deliveryId(),
                                a.number(),
                                a.startedAt(),
                                a.durationMs(),
                                a.statusCode(),
                                a.error(),
                                truncatedBody(a)
                            };
                        })
                        .toList());
    }

    @Override
    Map<String, String> updateDeliveries(
            Sql sql, String owner, List<Outcome> outcomes, long now, Map<String, String> endpointOf) {
        int[] counts = sql.batch(
                "UPDATE deliveries SET status = ?, next_attempt_at = ?, lease_owner = NULL, lease_expires_at = NULL, "
                        + "last_error = ?, updated_at = ? WHERE id = ? AND status = 'delivering' AND lease_owner = ? AND attempt_count = ?",
                outcomes.stream()
                        .map(o -> new Object[] {
                            o.newStatus().wireName(),
                            o.nextAttemptAt(),
                            o.lastError(),
                            now,
                            o.deliveryId(),
                            owner,
                            o.attempt().number()
                        })
                        .toList());
        List<String> applied = new ArrayList<>();
        for (int i = 0; i < counts.length; i++)
            if (counts[i] > 0) applied.add(outcomes.get(i).deliveryId());
        Map<String, String> scheduleOf = new HashMap<>();
        for (List<String> chunk : JdbcDeliveryQueue.chunks(applied)) {
            sql.query(
                    "SELECT id, schedule_id, endpoint_id FROM deliveries WHERE id IN (" + Sql.marks(chunk.size()) + ")",
                    rs -> {
                        if (rs.getString(3) != null) endpointOf.put(rs.getString(1), rs.getString(3));
                        return scheduleOf.put(rs.getString(1), rs.getString(2));
                    },
                    chunk.toArray());
        }
        return scheduleOf;
    }

    @Override
    Map<String, OutcomeBatch.Stored> lockSchedules(
            Sql sql, Set<String> scheduleIds, Set<String> withFailures, Set<String> finalIn) {
        // SQLite's write transaction already excludes every other writer: no row locks to take, and reading a schedule
        // the batch does not change costs nothing that matters here
        Map<String, OutcomeBatch.Stored> out = new HashMap<>();
        for (List<String> chunk : JdbcDeliveryQueue.chunks(List.copyOf(scheduleIds))) {
            sql.query(
                    "SELECT id, consecutive_failures, auto_pause_after, status, next_fire_at IS NULL FROM schedules"
                            + " WHERE id IN (" + Sql.marks(chunk.size()) + ")",
                    rs -> out.put(
                            rs.getString(1), stored(rs.getInt(2), rs.getInt(3), rs.getString(4), rs.getBoolean(5))),
                    chunk.toArray());
        }
        return out;
    }

    @Override
    void updateCounters(Sql sql, List<OutcomeBatch.CounterChange> changes, long now) {
        sql.batch(
                "UPDATE schedules SET consecutive_failures = ?, status = CASE WHEN ? = 1 THEN 'paused' ELSE status END, "
                        + "paused_reason = CASE WHEN ? = 1 THEN '" + Schedule.PAUSED_BY_FAILURES
                        + "' ELSE paused_reason END, "
                        + "updated_at = ? WHERE id = ?",
                changes.stream()
                        .map(c -> new Object[] {
                            c.consecutiveFailures(), c.pause() ? 1 : 0, c.pause() ? 1 : 0, now, c.scheduleId()
                        })
                        .toList());
    }
}

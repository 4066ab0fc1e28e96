package dev.idem.store.internal;

import dev.idem.core.Tenant;
import dev.idem.core.store.StatsRepository;
import java.time.Instant;
import java.util.Optional;

/**
 * The dashboard's counters. What finished in the window comes from the per-second counts its transactions added
 * ({@link FinishCounts}): at most one row per second of the window, whatever the rate. The other queries repeat a
 * partial index's predicate word for word (SQLite uses a partial index only then), so they read the dead-letter index
 * or the due rows, never the whole table; status values are literals for the same reason.
 */
final class JdbcStats implements StatsRepository {
    private final Sql sql;

    JdbcStats(Sql sql) {
        this.sql = sql;
    }

    @Override
    public DeliveryStats deliveryStats(Tenant tenant, Instant since, Instant now) {
        String project = tenant.projectId();
        String mode = Rows.mode(tenant.mode());
        long[] finished = FinishCounts.since(sql, project, mode, since);
        long dead = count(
                "SELECT COUNT(*) FROM deliveries WHERE status = 'dead' AND project_id = ? AND mode = ?", project, mode);
        long retrying = count(
                "SELECT COUNT(*) FROM deliveries WHERE status IN ('scheduled', 'retrying') AND status = 'retrying' "
                        + "AND project_id = ? AND mode = ?",
                project,
                mode);
        // the dispatcher's own notion of claimable (JdbcDeliveryQueue), so a paused schedule's due rows are no lag
        // and the queue's depth from the same rows: due, claimable, not yet claimed
        long[] queued = {0};
        Optional<Instant> oldestDue = sql.one(
                "SELECT MIN(q.next_attempt_at), COUNT(*) FROM deliveries q JOIN schedules qs ON qs.id = q.schedule_id "
                        + "WHERE q.status IN ('scheduled', 'retrying') AND q.next_attempt_at <= ? AND qs.status NOT IN ('paused', 'deleted') "
                        + "AND q.project_id = ? AND q.mode = ?",
                rs -> {
                    long due = rs.getLong(1);
                    boolean none = rs.wasNull();
                    queued[0] = rs.getLong(2);
                    return none ? null : Instant.ofEpochMilli(due);
                },
                now,
                project,
                mode);
        return new DeliveryStats(finished[0], finished[1], dead, retrying, oldestDue, queued[0]);
    }

    private long count(String query, Object... args) {
        return sql.one(query, rs -> rs.getLong(1), args).orElse(0L);
    }
}

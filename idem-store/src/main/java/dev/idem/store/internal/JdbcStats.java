package dev.idem.store.internal;

import dev.idem.core.Tenant;
import dev.idem.core.store.StatsRepository;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The dashboard's counters. Each query repeats a partial index's predicate word for word (SQLite uses a
 * partial index only then), so it reads the finished rows of the window, the dead-letter index or the
 * due rows, never the whole table; status values are literals for the same reason.
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
        Map<String, Long> finished = new HashMap<>();
        sql.query(
                "SELECT status, COUNT(*) FROM deliveries WHERE status IN ('succeeded', 'dead', 'cancelled') AND updated_at >= ? "
                        + "AND project_id = ? AND mode = ? GROUP BY status",
                rs -> finished.put(rs.getString(1), rs.getLong(2)),
                since,
                project,
                mode);
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
        return new DeliveryStats(
                finished.getOrDefault("succeeded", 0L),
                finished.getOrDefault("dead", 0L),
                dead,
                retrying,
                oldestDue,
                queued[0]);
    }

    private long count(String query, Object... args) {
        return sql.one(query, rs -> rs.getLong(1), args).orElse(0L);
    }
}

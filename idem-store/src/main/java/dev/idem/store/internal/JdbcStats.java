package dev.idem.store.internal;

import dev.idem.core.Tenant;
import dev.idem.core.store.StatsRepository;
import java.time.Instant;
import java.util.Optional;

/**
 * The dashboard's counters. What finished in the window comes from the per-second counts its transactions added
 * ({@link FinishCounts}): at most one row per second of the window, whatever the rate. The counts of deliveries in a
 * state read an index of that state's rows (the dead-letter index, the retrying index, the due rows) and stop after
 * {@link StatsRepository#COUNT_LIMIT} + 1 rows, so a dead-letter queue of millions costs what one of ten thousand does.
 * Each query repeats a partial index's predicate word for word (SQLite uses a partial index only then); status values
 * are literals for the same reason.
 */
final class JdbcStats implements StatsRepository {
    /** The claimable rows of one tenant due by a cutoff: the dispatcher's own notion (JdbcDeliveryQueue). */
    private static final String WAITING = "FROM deliveries q JOIN schedules qs ON qs.id = q.schedule_id "
            + "WHERE q.status IN ('scheduled', 'retrying') AND q.next_attempt_at <= ? "
            + "AND qs.status NOT IN ('paused', 'deleted') AND q.project_id = ? AND q.mode = ?";

    private final Sql sql;

    JdbcStats(Sql sql) {
        this.sql = sql;
    }

    @Override
    public DeliveryStats deliveryStats(Tenant tenant, Instant since, Instant now) {
        String project = tenant.projectId();
        String mode = Rows.mode(tenant.mode());
        long[] finished = FinishCounts.since(sql, project, mode, since);
        long dead = upToLimit(
                "SELECT 1 FROM deliveries WHERE status = 'dead' AND project_id = ? AND mode = ?", project, mode);
        long retrying = upToLimit(
                "SELECT 1 FROM deliveries WHERE status = 'retrying' AND project_id = ? AND mode = ?", project, mode);
        // a paused schedule's due rows are no lag; the depth is read from the same rows: due, claimable, not claimed
        Optional<Instant> oldestDue = sql.one(
                "SELECT q.next_attempt_at " + WAITING + " ORDER BY q.next_attempt_at LIMIT 1",
                rs -> Instant.ofEpochMilli(rs.getLong(1)),
                now,
                project,
                mode);
        long queued = oldestDue.isEmpty() ? 0 : upToLimit("SELECT 1 " + WAITING, now, project, mode);
        return new DeliveryStats(finished[0], finished[1], dead, retrying, oldestDue, queued);
    }

    /** How many rows {@code rows} yields, counting no further than one past {@link StatsRepository#COUNT_LIMIT}. */
    private long upToLimit(String rows, Object... args) {
        Object[] withLimit = java.util.Arrays.copyOf(args, args.length + 1);
        withLimit[args.length] = COUNT_LIMIT + 1;
        return sql.one("SELECT COUNT(*) FROM (" + rows + " LIMIT ?) counted", rs -> rs.getLong(1), withLimit)
                .orElse(0L);
    }
}

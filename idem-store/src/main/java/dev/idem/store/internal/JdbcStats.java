package dev.idem.store.internal;

import dev.idem.core.Tenant;
import dev.idem.core.store.StatsRepository;
import java.time.Instant;
import java.util.Arrays;
import java.util.Optional;

/**
 * The dashboard's counters. What finished in the window comes from the per-second counts its transactions added
 * ({@link FinishCounts}): at most one row per second of the window, whatever the rate. The counts of deliveries in a
 * state read an index of that state's rows (the dead-letter index, the retrying index, the tenant's due rows) and stop
 * after {@link StatsRepository#COUNT_LIMIT} + 1 rows, so a dead-letter queue of millions costs what one of ten thousand
 * does. Each query repeats a partial index's predicate word for word (SQLite uses a partial index only then); status
 * values are literals for the same reason.
 *
 * <p>On SQLite the lag and the depth read the tenant's own due rows in due order ({@code deliveries_tenant_due}), so
 * other tenants' backlogs and the tenant's history cost them nothing. PostgreSQL has no such index: with a tenant that
 * holds half the rows its planner still took the due index in order for the lag's first row, on per-column statistics
 * that cannot tell how few of the tenant's rows are due (idem-bench/runs/2026-11-29T2140-stats-paused-backlog.txt). On
 * both, the rows a pause holds are out of the due indexes ({@link ClaimSql#PENDING}), so a tenant's paused backlog, or
 * another tenant's, is not read on the way to the claimable rows; only a row written pending while its schedule was
 * already paused is read and left out by its schedule's status.
 */
final class JdbcStats implements StatsRepository {
    /** The claimable rows of one tenant due by a cutoff: the dispatcher's own notion (JdbcDeliveryQueue). */
    private static final String WAITING = "FROM deliveries q JOIN schedules qs ON qs.id = q.schedule_id "
            + "WHERE " + ClaimSql.PENDING + " AND q.next_attempt_at <= ? "
            + "AND qs.status NOT IN ('paused', 'deleted') AND q.project_id = ? AND q.mode = ?";

    /** The earliest claimable due instant: the lag's. Parameters: the cutoff, the project, the mode. */
    static final String OLDEST_DUE = "SELECT q.next_attempt_at " + WAITING + " ORDER BY q.next_attempt_at LIMIT 1";
    /** The queue's depth up to one past the limit. Parameters: the cutoff, the project, the mode, the limit. */
    static final String QUEUED = upToLimit("SELECT 1 " + WAITING);
    /** The tenant's dead deliveries up to one past the limit, through the dead-letter index. */
    private static final String DEAD =
            upToLimit("SELECT 1 FROM deliveries WHERE status = 'dead' AND project_id = ? AND mode = ?");
    /** The tenant's retrying deliveries up to one past the limit, through the retrying index. */
    private static final String RETRYING =
            upToLimit("SELECT 1 FROM deliveries WHERE status = 'retrying' AND project_id = ? AND mode = ?");

    private final Sql sql;

    JdbcStats(Sql sql) {
        this.sql = sql;
    }

    @Override
    public DeliveryStats deliveryStats(Tenant tenant, Instant since, Instant now) {
        String project = tenant.projectId();
        String mode = Rows.mode(tenant.mode());
        long[] finished = FinishCounts.since(sql, project, mode, since);
        long dead = count(DEAD, project, mode);
        long retrying = count(RETRYING, project, mode);
        // a paused schedule's due rows are no lag; the depth is read from the same rows: due, claimable, not claimed
        Optional<Instant> oldestDue =
                sql.one(OLDEST_DUE, rs -> Instant.ofEpochMilli(rs.getLong(1)), now, project, mode);
        long queued = oldestDue.isEmpty() ? 0 : count(QUEUED, now, project, mode);
        return new DeliveryStats(finished[0], finished[1], dead, retrying, oldestDue, queued);
    }

    /** A count of the rows {@code rows} yields that stops at a limit, its last parameter. */
    private static String upToLimit(String rows) {
        return "SELECT COUNT(*) FROM (" + rows + " LIMIT ?) counted";
    }

    /** Runs a count of {@link #upToLimit}: no further than one past {@link StatsRepository#COUNT_LIMIT}. */
    private long count(String statement, Object... args) {
        Object[] withLimit = Arrays.copyOf(args, args.length + 1);
        withLimit[args.length] = COUNT_LIMIT + 1;
        return sql.one(statement, rs -> rs.getLong(1), withLimit).orElse(0L);
    }
}

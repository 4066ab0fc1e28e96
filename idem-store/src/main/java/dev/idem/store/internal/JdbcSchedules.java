package dev.idem.store.internal;

import dev.idem.core.Page;
import dev.idem.core.Schedule;
import dev.idem.core.ScheduleStatus;
import dev.idem.core.Tenant;
import dev.idem.core.store.ScheduleRepository;
import dev.idem.core.store.ScheduleRepository.CursorMove;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

final class JdbcSchedules implements ScheduleRepository {
    private static final String TENANT = "project_id = ? AND mode = ?";
    private final Sql sql;
    private final Dialect dialect;

    JdbcSchedules(Sql sql, Dialect dialect) {
        this.sql = sql;
        this.dialect = dialect;
    }

    @Override
    public void insertAll(List<Schedule> schedules) {
        List<Object[]> rows = new ArrayList<>(schedules.size());
        for (Schedule s : schedules) {
            Object[] routing = routing(s);
            rows.add(new Object[] {
                s.id(),
                s.tenant().projectId(),
                Rows.mode(s.tenant().mode()),
                s.status().wireName(),
                DefinitionCodec.write(s.definition()),
                s.nextFireAt(),
                s.consecutiveFailures(),
                s.definition().autoPauseAfter(),
                s.pausedReason(),
                s.lastSequence(),
                s.definition().dedupId(),
                s.createdAt(),
                s.updatedAt(),
                routing[0],
                routing[1],
                routing[2],
                routing[3],
                s.origin() == null ? null : s.origin().kind().wireName(),
                s.origin() == null ? null : s.origin().sourceId(),
                s.trace() == null ? null : s.trace().traceparent(),
                s.trace() == null ? null : s.trace().tracestate()
            });
        }
        String head = "INSERT INTO schedules (id, project_id, mode, status, definition, next_fire_at, "
                + "consecutive_failures, auto_pause_after, paused_reason, last_sequence, dedup_id, created_at, "
                + "updated_at, " + ROUTING + ", origin, source_id, traceparent, tracestate) VALUES ";
        String row = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
        GroupedInserts held = sql.heldInserts();
        if (held != null) {
            // in a group commit: written with the other works' schedules in one statement before the COMMIT
            for (Object[] r : rows) held.hold(head, row, "", GroupedInserts.Check.ALL, 0, r);
            return;
        }
        sql.multiRowUpdate(head, row, rows, "");
    }

    /** The columns the claim reads instead of the definition: its destination and flow control. */
    static final String ROUTING = "destination, flow_key, flow_parallelism, flow_rate";

    /** The values of {@link #ROUTING} for a schedule, in that order. */
    static Object[] routing(Schedule s) {
        dev.idem.core.FlowControl fc = s.definition().flowControl();
        if (fc != null) Claims.flowControlWritten();
        return new Object[] {
            s.definition().destination(),
            fc == null ? null : fc.scopedKey(s.tenant()),
            fc == null ? null : fc.parallelism(),
            fc == null ? null : fc.rate()
        };
    }

    @Override
    public Optional<Schedule> find(Tenant tenant, String id) {
        return sql.one(
                "SELECT " + Rows.SCHEDULE + " FROM schedules WHERE id = ? AND " + TENANT,
                Rows::schedule,
                id,
                tenant.projectId(),
                Rows.mode(tenant.mode()));
    }

    @Override
    public Optional<Schedule> findForUpdate(Tenant tenant, String id) {
        return sql.one(
                "SELECT " + Rows.SCHEDULE + " FROM schedules WHERE id = ? AND " + TENANT + dialect.forUpdate(),
                Rows::schedule,
                id,
                tenant.projectId(),
                Rows.mode(tenant.mode()));
    }

    @Override
    public Page<Schedule> list(Tenant tenant, ScheduleStatus status, int limit, String startingAfter) {
        // only the user's own schedules: the tenant indexes are partial on origin IS NULL (V8)
        StringBuilder q = new StringBuilder("SELECT " + Rows.SCHEDULE + " FROM schedules WHERE ");
        List<Object> args = new ArrayList<>();
        dialect.listedTenant(q, args, tenant.projectId(), Rows.mode(tenant.mode()));
        q.append(" AND origin IS NULL");
        if (status == ScheduleStatus.COMPLETED) {
            // not in the status index (V61): the tenant index, newest first, where most rows are completed ones
            q.append(" AND status = 'completed'");
        } else if (status != null) {
            // the status index's predicate stated word for word, the status a literal (an enum's stored name), so
            // that both SQLite and a generic PostgreSQL plan may use the partial index
            q.append(" AND status <> 'completed' AND status = '")
                    .append(status.wireName())
                    .append('\'');
        }
        if (startingAfter != null) {
            q.append(" AND id < ?");
            args.add(startingAfter);
        }
        return Pages.fetch(sql, q, args, limit, Rows::schedule);
    }

    /**
     * {@inheritDoc}
     *
     * <p>The definition's revision (V11) moves only when the stored text differs from the new one: the expression reads
     * the row as it was before this statement on both databases. A pause or a reset rewrites the same text and leaves it
     * be, so a claim held ahead of its instant still starts ({@link HeldCheck}).
     */
    @Override
    public boolean update(Schedule s) {
        Object[] routing = routing(s);
        String definition = DefinitionCodec.write(s.definition());
        return sql.update(
                        "UPDATE schedules SET status = ?, definition = ?, next_fire_at = ?, consecutive_failures = ?, "
                                + "auto_pause_after = ?, paused_reason = ?, last_sequence = ?, dedup_id = ?, updated_at = ?, "
                                + "destination = ?, flow_key = ?, flow_parallelism = ?, flow_rate = ?, "
                                + "definition_revision = CASE WHEN definition = ? THEN definition_revision "
                                + "ELSE definition_revision + 1 END WHERE id = ?",
                        s.status().wireName(),
                        definition,
                        s.nextFireAt(),
                        s.consecutiveFailures(),
                        s.definition().autoPauseAfter(),
                        s.pausedReason(),
                        s.lastSequence(),
                        s.definition().dedupId(),
                        s.updatedAt(),
                        routing[0],
                        routing[1],
                        routing[2],
                        routing[3],
                        definition,
                        s.id())
                == 1;
    }

    /**
     * One {@code UPDATE … FROM} a {@code VALUES} list per chunk: the cursor moves only where it still is where it was
     * read and the schedule is active (compare-and-set); the winners come back by {@code RETURNING}. The unary
     * {@code +} keeps SQLite's planner from driving the join by the cursor column: with a 1,000-row list it scanned
     * the whole table and probed the list by {@code expected} (every schedule of a mass cron has the same cursor), a
     * full scan per page, 760 µs of CPU per row at 20,000 schedules; with it, the list drives and each row is found
     * by its key. PostgreSQL's plan is the same either way (the list drives an index scan on the key).
     */
    @Override
    public Set<String> advanceCursors(List<CursorMove> moves, Instant now) {
        List<Object[]> rows = new ArrayList<>(moves.size());
        for (CursorMove m : moves) rows.add(new Object[] {m.scheduleId(), m.expected(), m.next(), m.lastSequence()});
        return new HashSet<>(sql.multiRowQuery(
                "WITH v (id, expected, next_at, seq) AS (VALUES ",
                "(?, CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS BIGINT))",
                rows,
                ") UPDATE schedules SET next_fire_at = v.next_at, last_sequence = v.seq, updated_at = ? FROM v "
                        + "WHERE schedules.id = v.id AND schedules.status = 'active' AND schedules.next_fire_at = +v.expected "
                        + "RETURNING schedules.id",
                rs -> rs.getString(1),
                now));
    }

    @Override
    public Set<String> completeIfFinished(Collection<String> scheduleIds, Instant now) {
        return Settlement.ofHeldSchedules(sql, dialect, scheduleIds, now);
    }

    @Override
    public List<Schedule> dueForMaterialisation(Instant horizon, int limit) {
        return sql.query(
                "SELECT " + Rows.SCHEDULE + " FROM schedules WHERE status = 'active' AND next_fire_at IS NOT NULL "
                        + "AND next_fire_at <= ? ORDER BY next_fire_at LIMIT ?" + dialect.forUpdate()
                        + dialect.skipLockedClause(),
                Rows::schedule,
                horizon,
                limit);
    }
}

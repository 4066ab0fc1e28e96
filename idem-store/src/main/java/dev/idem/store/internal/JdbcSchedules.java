package dev.idem.store.internal;

import dev.idem.core.Page;
import dev.idem.core.Schedule;
import dev.idem.core.ScheduleStatus;
import dev.idem.core.Tenant;
import dev.idem.core.store.ScheduleRepository;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

final class JdbcSchedules implements ScheduleRepository {
    private static final String TENANT = "project_id = ? AND mode = ?";
    private final Sql sql;
    private final Dialect dialect;

    JdbcSchedules(Sql sql, Dialect dialect) {
        this.sql = sql;
        this.dialect = dialect;
    }

    @Override
    public void insert(Schedule s) {
        sql.update("INSERT INTO schedules (id, project_id, mode, status, definition, next_fire_at, consecutive_failures, "
                        + "auto_pause_after, paused_reason, last_sequence, dedup_id, created_at, updated_at) "
                        + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                s.id(), s.tenant().projectId(), Rows.mode(s.tenant().mode()), s.status().wireName(), DefinitionCodec.write(s.definition()),
                s.nextFireAt(), s.consecutiveFailures(), s.definition().autoPauseAfter(), s.pausedReason(), s.lastSequence(),
                s.definition().dedupId(), s.createdAt(), s.updatedAt());
    }

    @Override
    public Optional<Schedule> find(Tenant tenant, String id) {
        return sql.one("SELECT " + Rows.SCHEDULE + " FROM schedules WHERE id = ? AND " + TENANT, Rows::schedule, id,
                tenant.projectId(), Rows.mode(tenant.mode()));
    }

    @Override
    public Optional<Schedule> findForUpdate(Tenant tenant, String id) {
        return sql.one("SELECT " + Rows.SCHEDULE + " FROM schedules WHERE id = ? AND " + TENANT + dialect.forUpdate(), Rows::schedule,
                id, tenant.projectId(), Rows.mode(tenant.mode()));
    }

    @Override
    public Page<Schedule> list(Tenant tenant, ScheduleStatus status, int limit, String startingAfter) {
        StringBuilder q = new StringBuilder("SELECT " + Rows.SCHEDULE + " FROM schedules WHERE " + TENANT);
        List<Object> args = new ArrayList<>(List.of(tenant.projectId(), Rows.mode(tenant.mode())));
        if (status != null) {
            q.append(" AND status = ?");
            args.add(status.wireName());
        }
        if (startingAfter != null) {
            q.append(" AND id < ?");
            args.add(startingAfter);
        }
        return Pages.fetch(sql, q, args, limit, Rows::schedule);
    }

    @Override
    public boolean update(Schedule s) {
        return sql.update("UPDATE schedules SET status = ?, definition = ?, next_fire_at = ?, consecutive_failures = ?, "
                        + "auto_pause_after = ?, paused_reason = ?, last_sequence = ?, dedup_id = ?, updated_at = ? WHERE id = ?",
                s.status().wireName(), DefinitionCodec.write(s.definition()), s.nextFireAt(), s.consecutiveFailures(),
                s.definition().autoPauseAfter(), s.pausedReason(), s.lastSequence(), s.definition().dedupId(), s.updatedAt(), s.id()) == 1;
    }

    @Override
    public boolean advanceCursor(String scheduleId, Instant expectedNextFireAt, Instant newNextFireAt, long newLastSequence, Instant now) {
        String expected = expectedNextFireAt == null ? "next_fire_at IS NULL" : "next_fire_at = ?";
        String status = (newNextFireAt == null ? ScheduleStatus.COMPLETED : ScheduleStatus.ACTIVE).wireName();
        String q = "UPDATE schedules SET next_fire_at = ?, last_sequence = ?, status = ?, updated_at = ? WHERE id = ? AND status = 'active' AND "
                + expected;
        return (expectedNextFireAt == null
                ? sql.update(q, newNextFireAt, newLastSequence, status, now, scheduleId)
                : sql.update(q, newNextFireAt, newLastSequence, status, now, scheduleId, expectedNextFireAt)) == 1;
    }

    @Override
    public List<Schedule> dueForMaterialisation(Instant horizon, int limit) {
        return sql.query("SELECT " + Rows.SCHEDULE + " FROM schedules WHERE status = 'active' AND next_fire_at IS NOT NULL "
                + "AND next_fire_at <= ? ORDER BY next_fire_at LIMIT ?", Rows::schedule, horizon, limit);
    }
}

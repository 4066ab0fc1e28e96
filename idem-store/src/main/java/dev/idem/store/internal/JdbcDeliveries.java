package dev.idem.store.internal;

import dev.idem.core.Attempt;
import dev.idem.core.Delivery;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.Page;
import dev.idem.core.Tenant;
import dev.idem.core.store.DeliveryRepository;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

final class JdbcDeliveries implements DeliveryRepository {
    static final String PENDING = "status IN ('scheduled', 'retrying', 'delivering')";
    /** A delivery's attempts: through the attempts' key (delivery_id, id), a handful of rows sorted here (V13). */
    static final String ATTEMPTS =
            "SELECT " + Rows.ATTEMPT + " FROM attempts WHERE delivery_id = ? ORDER BY number, started_at";
    /** Written, not yet claimed, never attempted: an occurrence no receiver has seen, which may still move or go. */
    private static final String NEVER_ATTEMPTED = "status = 'scheduled' AND attempt_count = 0";

    private final Sql sql;
    private final Dialect dialect;

    JdbcDeliveries(Sql sql, Dialect dialect) {
        this.sql = sql;
        this.dialect = dialect;
    }

    /** Multi-row inserts; a unique constraint on (schedule_id, scheduled_for) skips an occurrence that exists. */
    @Override
    public int insertAll(List<Delivery> deliveries) {
        List<Object[]> rows = new ArrayList<>(deliveries.size());
        for (Delivery d : deliveries)
            rows.add(new Object[] {
                d.id(),
                d.tenant().projectId(),
                Rows.mode(d.tenant().mode()),
                d.scheduleId(),
                d.scheduledFor(),
                d.sequence(),
                d.status().wireName(),
                d.attemptCount(),
                d.nextAttemptAt(),
                Rows.storedKey(d),
                d.leaseOwner(),
                d.leaseExpiresAt(),
                d.lastError(),
                d.createdAt(),
                d.updatedAt(),
                d.messageId(),
                d.endpointId()
            });
        String head = "INSERT INTO deliveries (" + Rows.DELIVERY + ") VALUES ";
        String row = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
        GroupedInserts held = sql.heldInserts();
        if (held != null) {
            // in a group commit: written with the other works' deliveries in one statement before the COMMIT; a row
            // that ON CONFLICT skips there fails the group, whose works then run alone and count their rows as here
            for (Object[] r : rows) held.hold(head, row, " ON CONFLICT DO NOTHING", GroupedInserts.Check.ALL, 0, r);
            return rows.size();
        }
        return sql.multiRowUpdate(head, row, rows, " ON CONFLICT DO NOTHING");
    }

    @Override
    public List<Delivery> neverAttempted(String scheduleId) {
        return sql.query(
                "SELECT " + Rows.DELIVERY_READ + " FROM deliveries WHERE schedule_id = ? AND " + NEVER_ATTEMPTED
                        + " ORDER BY scheduled_for",
                Rows::delivery,
                scheduleId);
    }

    @Override
    public boolean reschedule(String deliveryId, Instant scheduledFor, Instant now) {
        return sql.update(
                        "UPDATE deliveries SET scheduled_for = ?, next_attempt_at = ?, updated_at = ? WHERE id = ? AND "
                                + NEVER_ATTEMPTED,
                        scheduledFor,
                        scheduledFor,
                        now,
                        deliveryId)
                == 1;
    }

    @Override
    public int cancelNeverAttempted(java.util.Collection<String> deliveryIds, Instant now) {
        int n = 0;
        for (List<String> chunk : JdbcDeliveryQueue.chunks(List.copyOf(deliveryIds))) {
            Object[] args = new Object[chunk.size() + 1];
            args[0] = now;
            for (int i = 0; i < chunk.size(); i++) args[i + 1] = chunk.get(i);
            n += sql.update(
                    "UPDATE deliveries SET status = 'cancelled', next_attempt_at = NULL, updated_at = ? WHERE id IN ("
                            + Sql.marks(chunk.size()) + ") AND " + NEVER_ATTEMPTED,
                    args);
        }
        return n;
    }

    @Override
    public int deleteNeverAttempted(java.util.Collection<String> deliveryIds) {
        int n = 0;
        for (List<String> chunk : JdbcDeliveryQueue.chunks(List.copyOf(deliveryIds))) {
            int deleted = sql.update(
                    "DELETE FROM deliveries WHERE id IN (" + Sql.marks(chunk.size()) + ") AND " + NEVER_ATTEMPTED,
                    chunk.toArray());
            // a materialised occurrence's span, kept while tracing is on
            if (deleted > 0) JdbcDeliveryTraces.deleteOrphans(sql, chunk);
            n += deleted;
        }
        return n;
    }

    @Override
    public List<Delivery> ofMessage(Tenant tenant, String messageId) {
        return sql.query(
                "SELECT " + Rows.DELIVERY_READ
                        + " FROM deliveries WHERE message_id = ? AND project_id = ? AND mode = ? ORDER BY id",
                Rows::delivery,
                messageId,
                tenant.projectId(),
                Rows.mode(tenant.mode()));
    }

    @Override
    public Optional<Delivery> find(Tenant tenant, String id) {
        return sql.one(
                "SELECT " + Rows.DELIVERY_READ + " FROM deliveries WHERE id = ? AND project_id = ? AND mode = ?",
                Rows::delivery,
                id,
                tenant.projectId(),
                Rows.mode(tenant.mode()));
    }

    @Override
    public Page<Delivery> list(
            Tenant tenant,
            String scheduleId,
            DeliveryStatus status,
            ListFilter filter,
            int limit,
            String startingAfter) {
        StringBuilder q = new StringBuilder("SELECT " + Rows.DELIVERY_READ + " FROM deliveries WHERE ");
        List<Object> args = new ArrayList<>();
        dialect.listedTenant(q, args, tenant.projectId(), Rows.mode(tenant.mode()));
        if (scheduleId != null) {
            q.append(" AND schedule_id = ?");
            args.add(scheduleId);
        }
        return page(q, args, status, filter, limit, startingAfter);
    }

    @Override
    public Page<Delivery> listBySource(
            Tenant tenant, String sourceId, DeliveryStatus status, ListFilter filter, int limit, String startingAfter) {
        // a source's events are internal one-shots carrying its id (schedules_source index), one delivery each
        StringBuilder q =
                new StringBuilder("SELECT " + Rows.DELIVERY_READ + " FROM deliveries WHERE project_id = ? AND mode = ? "
                        + "AND schedule_id IN (SELECT id FROM schedules WHERE source_id = ?)");
        List<Object> args = new ArrayList<>(List.of(tenant.projectId(), Rows.mode(tenant.mode()), sourceId));
        return page(q, args, status, filter, limit, startingAfter);
    }

    @Override
    public Page<Delivery> listByEndpoint(
            Tenant tenant,
            String endpointId,
            String applicationId,
            DeliveryStatus status,
            ListFilter filter,
            int limit,
            String startingAfter) {
        // deliveries_endpoint (endpoint_id, id) serves both: one endpoint, or an application's few endpoints
        StringBuilder q = new StringBuilder(
                "SELECT " + Rows.DELIVERY_READ + " FROM deliveries WHERE project_id = ? AND mode = ?");
        List<Object> args = new ArrayList<>(List.of(tenant.projectId(), Rows.mode(tenant.mode())));
        toEndpoints(q, args, tenant, endpointId, applicationId);
        return page(q, args, status, filter, limit, startingAfter);
    }

    /** The page of the deliveries {@code q} chooses, narrowed by status, {@code filter} and the cursor. */
    private Page<Delivery> page(
            StringBuilder q,
            List<Object> args,
            DeliveryStatus status,
            ListFilter filter,
            int limit,
            String startingAfter) {
        if (status != null) {
            // A literal (from the enum, never user text) so the planner can pick the dead-letter partial index.
            q.append(" AND status = '").append(status.wireName()).append("'");
        }
        if (filter.eventType() != null) {
            // a message's own row by its primary key, for each delivery the newest-first walk reads
            q.append(" AND EXISTS (SELECT 1 FROM messages m WHERE m.id = deliveries.message_id AND m.event_type = ?)");
            args.add(filter.eventType());
        }
        if (filter.since() != null) {
            q.append(" AND created_at >= ?");
            args.add(filter.since());
        }
        if (filter.until() != null) {
            q.append(" AND created_at < ?");
            args.add(filter.until());
        }
        if (startingAfter != null) {
            q.append(" AND id < ?");
            args.add(startingAfter);
        }
        return Pages.fetch(sql, q, args, limit, Rows::delivery);
    }

    /** Narrows {@code q} to deliveries to endpoint {@code endpointId} and/or application {@code applicationId}'s. */
    private static void toEndpoints(
            StringBuilder q, List<Object> args, Tenant tenant, String endpointId, String applicationId) {
        if (endpointId != null) {
            q.append(" AND endpoint_id = ?");
            args.add(endpointId);
        }
        if (applicationId != null) {
            q.append(" AND endpoint_id IN (SELECT id FROM endpoints WHERE application_id = ? AND project_id = ? "
                    + "AND mode = ?)");
            args.addAll(List.of(applicationId, tenant.projectId(), Rows.mode(tenant.mode())));
        }
    }

    @Override
    public List<Attempt> attempts(String deliveryId) {
        return sql.query(ATTEMPTS, Rows::attempt, deliveryId);
    }

    @Override
    public int cancelPending(String scheduleId, Instant now) {
        return sql.update(
                "UPDATE deliveries SET status = 'cancelled', next_attempt_at = NULL, updated_at = ? "
                        + "WHERE schedule_id = ? AND status IN ('scheduled', 'retrying')",
                now,
                scheduleId);
    }

    /**
     * {@inheritDoc}
     *
     * <p>A message's delivery whose endpoint or application has a {@code rate_limit} goes under it
     * ({@link EndpointLimits#replayed}), also when the limit came after the delivery finished.
     */
    @Override
    public boolean requeueForReplay(Tenant tenant, String deliveryId, Instant now) {
        boolean requeued = sql.update(
                        "UPDATE deliveries SET status = 'retrying', replayed = TRUE, next_attempt_at = ?, updated_at = ? "
                                + "WHERE id = ? AND project_id = ? AND mode = ? AND status IN ('dead', 'succeeded')",
                        now,
                        now,
                        deliveryId,
                        tenant.projectId(),
                        Rows.mode(tenant.mode()))
                == 1;
        if (requeued) EndpointLimits.replayed(sql, tenant, List.of(deliveryId));
        return requeued;
    }

    @Override
    public int requeueDeadForReplay(Tenant tenant, java.util.Collection<String> deliveryIds, Instant now) {
        int n = 0;
        for (List<String> chunk : JdbcDeliveryQueue.chunks(List.copyOf(deliveryIds))) {
            List<Object> args = new ArrayList<>(List.of(now, now, tenant.projectId(), Rows.mode(tenant.mode())));
            args.addAll(chunk);
            n += sql.update(
                    "UPDATE deliveries SET status = 'retrying', replayed = TRUE, next_attempt_at = ?, updated_at = ? "
                            + "WHERE project_id = ? AND mode = ? AND status = 'dead' AND id IN ("
                            + Sql.marks(chunk.size()) + ")",
                    args.toArray());
        }
        if (n > 0) EndpointLimits.replayed(sql, tenant, deliveryIds);
        return n;
    }

    /** Walks the dead-letter partial index ({@code project_id, mode, id WHERE status = 'dead'}) forward from the cursor. */
    @Override
    public List<Delivery> deadForReplay(Tenant tenant, DeadFilter filter, String afterId, int limit) {
        StringBuilder q = new StringBuilder("SELECT " + Rows.DELIVERY_READ
                + " FROM deliveries WHERE project_id = ? AND mode = ? AND status = 'dead'");
        List<Object> args = new ArrayList<>(List.of(tenant.projectId(), Rows.mode(tenant.mode())));
        if (afterId != null) {
            q.append(" AND id > ?");
            args.add(afterId);
        }
        if (filter.scheduleId() != null) {
            q.append(" AND schedule_id = ?");
            args.add(filter.scheduleId());
        }
        if (filter.deadSince() != null) {
            q.append(" AND updated_at >= ?");
            args.add(filter.deadSince());
        }
        if (filter.deadBefore() != null) {
            q.append(" AND updated_at < ?");
            args.add(filter.deadBefore());
        }
        if (filter.destination() != null) {
            q.append(
                    " AND EXISTS (SELECT 1 FROM schedules s WHERE s.id = deliveries.schedule_id AND (s.destination = ? OR s.destination IS NULL))");
            args.add(filter.destination());
        }
        toEndpoints(q, args, tenant, filter.endpointId(), filter.applicationId());
        q.append(" ORDER BY id LIMIT ?");
        args.add(limit);
        return sql.query(q.toString(), Rows::delivery, args.toArray());
    }

    @Override
    public boolean hasPending(String scheduleId) {
        return sql.one(
                        "SELECT 1 FROM deliveries WHERE schedule_id = ? AND " + PENDING + " LIMIT 1",
                        rs -> Boolean.TRUE,
                        scheduleId)
                .isPresent();
    }

    /**
     * One statement for a page: the earliest pending occurrence per schedule, and the latest due delivery's status (the
     * unique index on (schedule_id, scheduled_for) finds it by a backward seek per schedule).
     */
    @Override
    public java.util.Map<String, ScheduleDeliveries> summaries(java.util.Collection<String> scheduleIds, Instant now) {
        java.util.Map<String, Instant> pending = new java.util.HashMap<>();
        java.util.Map<String, DeliveryStatus> last = new java.util.HashMap<>();
        Long nowMillis = now.isBefore(Instant.EPOCH) ? Long.MIN_VALUE : now.toEpochMilli();
        for (List<String> chunk : JdbcDeliveryQueue.chunks(List.copyOf(new java.util.LinkedHashSet<>(scheduleIds)))) {
            String in = "schedule_id IN (" + Sql.marks(chunk.size()) + ")";
            Object[] args = new Object[chunk.size() * 2 + 1];
            for (int i = 0; i < chunk.size(); i++) args[i] = args[chunk.size() + i] = chunk.get(i);
            args[args.length - 1] = nowMillis;
            sql.query(
                    "SELECT schedule_id, 'p' AS k, MIN(scheduled_for) AS t, NULL AS st FROM deliveries WHERE " + in
                            + " AND " + PENDING
                            + " GROUP BY schedule_id UNION ALL SELECT d.schedule_id, 'l', d.scheduled_for, d.status FROM deliveries d WHERE d."
                            + in
                            + " AND d.scheduled_for = (SELECT MAX(x.scheduled_for) FROM deliveries x WHERE x.schedule_id = d.schedule_id "
                            + "AND x.scheduled_for <= ?)",
                    rs -> {
                        if (rs.getString(2).equals("p")) pending.put(rs.getString(1), Sql.instant(rs, "t"));
                        else last.put(rs.getString(1), DeliveryStatus.parse(rs.getString(4)));
                        return null;
                    },
                    args);
        }
        java.util.Map<String, ScheduleDeliveries> out = new java.util.HashMap<>();
        for (String id : scheduleIds)
            if (pending.containsKey(id) || last.containsKey(id))
                out.put(id, new ScheduleDeliveries(pending.get(id), last.get(id)));
        return out;
    }
}

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
    private final Sql sql;

    JdbcDeliveries(Sql sql) {
        this.sql = sql;
    }

    @Override
    public boolean insertIfAbsent(Delivery d) {
        return sql.update("INSERT INTO deliveries (" + Rows.DELIVERY + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                        + "ON CONFLICT DO NOTHING",
                d.id(), d.tenant().projectId(), Rows.mode(d.tenant().mode()), d.scheduleId(), d.scheduledFor(), d.sequence(),
                d.status().wireName(), d.attemptCount(), d.nextAttemptAt(), d.idempotencyKey(), d.leaseOwner(), d.leaseExpiresAt(),
                d.lastError(), d.createdAt(), d.updatedAt()) == 1;
    }

    @Override
    public Optional<Delivery> find(Tenant tenant, String id) {
        return sql.one("SELECT " + Rows.DELIVERY_READ + " FROM deliveries WHERE id = ? AND project_id = ? AND mode = ?", Rows::delivery, id,
                tenant.projectId(), Rows.mode(tenant.mode()));
    }

    @Override
    public Page<Delivery> list(Tenant tenant, String scheduleId, DeliveryStatus status, int limit, String startingAfter) {
        StringBuilder q = new StringBuilder("SELECT " + Rows.DELIVERY_READ + " FROM deliveries WHERE project_id = ? AND mode = ?");
        List<Object> args = new ArrayList<>(List.of(tenant.projectId(), Rows.mode(tenant.mode())));
        if (scheduleId != null) {
            q.append(" AND schedule_id = ?");
            args.add(scheduleId);
        }
        if (status != null) {
            // A literal (from the enum, never user text) so the planner can pick the dead-letter partial index.
            q.append(" AND status = '").append(status.wireName()).append("'");
        }
        if (startingAfter != null) {
            q.append(" AND id < ?");
            args.add(startingAfter);
        }
        return Pages.fetch(sql, q, args, limit, Rows::delivery);
    }

    @Override
    public List<Attempt> attempts(String deliveryId) {
        return sql.query("SELECT " + Rows.ATTEMPT + " FROM attempts WHERE delivery_id = ? ORDER BY number, started_at", Rows::attempt,
                deliveryId);
    }

    @Override
    public int cancelPending(String scheduleId, Instant now) {
        return sql.update("UPDATE deliveries SET status = 'cancelled', next_attempt_at = NULL, updated_at = ? "
                + "WHERE schedule_id = ? AND status IN ('scheduled', 'retrying')", now, scheduleId);
    }

    @Override
    public boolean requeueForReplay(Tenant tenant, String deliveryId, Instant now) {
        return sql.update("UPDATE deliveries SET status = 'retrying', replayed = TRUE, next_attempt_at = ?, updated_at = ? "
                        + "WHERE id = ? AND project_id = ? AND mode = ? AND status IN ('dead', 'succeeded')",
                now, now, deliveryId, tenant.projectId(), Rows.mode(tenant.mode())) == 1;
    }

    @Override
    public boolean hasPending(String scheduleId) {
        return sql.one("SELECT 1 FROM deliveries WHERE schedule_id = ? AND " + PENDING + " LIMIT 1", rs -> Boolean.TRUE, scheduleId)
                .isPresent();
    }

    @Override
    public java.util.Map<String, Instant> earliestPending(java.util.Collection<String> scheduleIds) {
        java.util.Map<String, Instant> out = new java.util.HashMap<>();
        for (List<String> chunk : JdbcDeliveryQueue.chunks(List.copyOf(new java.util.LinkedHashSet<>(scheduleIds)))) {
            sql.query("SELECT schedule_id, MIN(scheduled_for) AS m FROM deliveries WHERE schedule_id IN (" + Sql.marks(chunk.size()) + ") AND "
                    + PENDING + " GROUP BY schedule_id", rs -> out.put(rs.getString(1), Sql.instant(rs, "m")), chunk.toArray());
        }
        return out;
    }
}

package dev.idem.store.internal;

import dev.idem.core.DeliveryStatus;
import dev.idem.core.Page;
import dev.idem.core.Tenant;
import dev.idem.core.fanout.Message;
import dev.idem.core.store.MessageRepository;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/** Table {@code messages}: one row per message, written once (the primary key decides between two writers). */
final class JdbcMessages implements MessageRepository {
    private static final String COLUMNS = "id, project_id, mode, event_type, application_id, payload, idempotency_key, "
            + "dedup_id, schedule_id, scheduled_for, deliveries, created_at";
    private final Sql sql;
    private final Dialect dialect;

    JdbcMessages(Sql sql, Dialect dialect) {
        this.sql = sql;
        this.dialect = dialect;
    }

    @Override
    public boolean insert(Message m) {
        Object[] row = {
            m.id(),
            m.tenant().projectId(),
            Rows.mode(m.tenant().mode()),
            m.eventType(),
            m.applicationId(),
            m.payloadJson(),
            m.idempotencyKey(),
            m.dedupId(),
            m.scheduleId(),
            m.scheduledFor(),
            m.deliveries(),
            m.createdAt()
        };
        String head = "INSERT INTO messages (" + COLUMNS + ") VALUES ";
        String values = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
        GroupedInserts held = sql.heldInserts();
        if (held != null) {
            // in a group commit: written with the other works' messages in one statement before the COMMIT; an id that
            // exists already fails the group there, whose works then run alone and get false here
            held.hold(head, values, " ON CONFLICT DO NOTHING", GroupedInserts.Check.ALL, 0, row);
            return true;
        }
        return sql.update(head + values + " ON CONFLICT DO NOTHING", row) == 1;
    }

    @Override
    public Optional<Message> find(Tenant tenant, String id) {
        return sql.one(
                "SELECT " + COLUMNS + " FROM messages WHERE id = ? AND project_id = ? AND mode = ?",
                JdbcMessages::row,
                id,
                tenant.projectId(),
                Rows.mode(tenant.mode()));
    }

    @Override
    public Page<Message> list(
            Tenant tenant,
            String eventType,
            String applicationId,
            Instant since,
            Instant until,
            Set<DeliveryStatus> deliveryStatuses,
            int limit,
            String startingAfter) {
        StringBuilder q = new StringBuilder("SELECT " + COLUMNS + " FROM messages WHERE ");
        List<Object> args = new ArrayList<>();
        dialect.listedTenant(q, args, tenant.projectId(), Rows.mode(tenant.mode()));
        if (eventType != null) {
            q.append(" AND event_type = ?");
            args.add(eventType);
        }
        if (applicationId != null) {
            q.append(" AND application_id = ?");
            args.add(applicationId);
        }
        if (since != null) {
            q.append(" AND created_at >= ?");
            args.add(since);
        }
        if (until != null) {
            q.append(" AND created_at < ?");
            args.add(until);
        }
        if (!deliveryStatuses.isEmpty())
            // deliveries_message (message_id) finds a message's few deliveries; the states are the enum's own names
            q.append(" AND EXISTS (SELECT 1 FROM deliveries d WHERE d.message_id = messages.id AND d.status IN (")
                    .append(deliveryStatuses.stream()
                            .map(st -> "'" + st.wireName() + "'")
                            .sorted()
                            .collect(Collectors.joining(", ")))
                    .append("))");
        return Pages.after(sql, q.toString(), args, startingAfter, limit, JdbcMessages::row);
    }

    private static Message row(ResultSet rs) throws SQLException {
        return new Message(
                rs.getString("id"),
                Rows.tenant(rs, ""),
                rs.getString("event_type"),
                rs.getString("application_id"),
                rs.getString("payload"),
                rs.getString("idempotency_key"),
                rs.getString("dedup_id"),
                rs.getString("schedule_id"),
                Sql.instant(rs, "scheduled_for"),
                rs.getInt("deliveries"),
                Sql.instant(rs, "created_at"));
    }
}

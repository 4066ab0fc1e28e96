package dev.idem.store.internal;

import dev.idem.core.Page;
import dev.idem.core.Tenant;
import dev.idem.core.fanout.EventSchema;
import dev.idem.core.fanout.EventType;
import dev.idem.core.store.EventTypeRepository;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Table {@code event_types}, keyed by (tenant, name); lists go in name order. */
final class JdbcEventTypes implements EventTypeRepository {
    private static final String COLUMNS =
            "project_id, mode, name, description, json_schema, example, deprecated, created_at, updated_at";
    private static final String BY_KEY = " WHERE project_id = ? AND mode = ? AND name = ?";
    private final Sql sql;

    JdbcEventTypes(Sql sql) {
        this.sql = sql;
    }

    @Override
    public boolean insert(EventType t) {
        return sql.update(
                        "INSERT INTO event_types (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                                + "ON CONFLICT DO NOTHING",
                        t.tenant().projectId(),
                        Rows.mode(t.tenant().mode()),
                        t.name(),
                        t.description(),
                        t.schema() == null ? null : t.schema().json(),
                        t.exampleJson(),
                        t.deprecated(),
                        t.createdAt(),
                        t.updatedAt())
                == 1;
    }

    @Override
    public Optional<EventType> find(Tenant tenant, String name) {
        // read once per group commit: a group of sends of one event type checks them against one read
        return sql.onePerGroup(
                "SELECT " + COLUMNS + " FROM event_types" + BY_KEY,
                JdbcEventTypes::row,
                tenant.projectId(),
                Rows.mode(tenant.mode()),
                name);
    }

    @Override
    public Page<EventType> list(Tenant tenant, int limit, String startingAfter) {
        if (limit < 1) throw new IllegalArgumentException("limit must be at least 1");
        StringBuilder q =
                new StringBuilder("SELECT " + COLUMNS + " FROM event_types WHERE project_id = ? AND mode = ?");
        List<Object> args = new ArrayList<>(List.of(tenant.projectId(), Rows.mode(tenant.mode())));
        if (startingAfter != null) {
            q.append(" AND name > ?");
            args.add(startingAfter);
        }
        q.append(" ORDER BY name LIMIT ?");
        args.add(limit + 1);
        List<EventType> rows = sql.query(q.toString(), JdbcEventTypes::row, args.toArray());
        boolean more = rows.size() > limit;
        return new Page<>(more ? rows.subList(0, limit) : rows, more);
    }

    @Override
    public boolean update(EventType t) {
        return sql.update(
                        "UPDATE event_types SET description = ?, json_schema = ?, example = ?, deprecated = ?, "
                                + "updated_at = ?" + BY_KEY,
                        t.description(),
                        t.schema() == null ? null : t.schema().json(),
                        t.exampleJson(),
                        t.deprecated(),
                        t.updatedAt(),
                        t.tenant().projectId(),
                        Rows.mode(t.tenant().mode()),
                        t.name())
                == 1;
    }

    @Override
    public boolean delete(Tenant tenant, String name) {
        return sql.update("DELETE FROM event_types" + BY_KEY, tenant.projectId(), Rows.mode(tenant.mode()), name) == 1;
    }

    private static EventType row(ResultSet rs) throws SQLException {
        String schema = rs.getString("json_schema");
        return new EventType(
                Rows.tenant(rs, ""),
                rs.getString("name"),
                rs.getString("description"),
                schema == null ? null : EventSchema.stored(schema),
                rs.getString("example"),
                rs.getBoolean("deprecated"),
                Sql.instant(rs, "created_at"),
                Sql.instant(rs, "updated_at"));
    }
}

package dev.idem.store.internal;

import dev.idem.core.Tenant;
import dev.idem.core.outcome.EndpointHealth;
import dev.idem.core.store.EndpointHealthRepository;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Table {@code endpoint_health}: one row per endpoint that has had an attempt. */
final class JdbcEndpointHealth implements EndpointHealthRepository {
    static final String COLUMNS = "endpoint_id, project_id, mode, window_start, attempts, failures, previous_attempts, "
            + "previous_failures, last_success_at, failing_since, last_failure_at, last_failure";
    private final Sql sql;

    JdbcEndpointHealth(Sql sql) {
        this.sql = sql;
    }

    @Override
    public Map<String, EndpointHealth> find(Tenant tenant, Collection<String> endpointIds) {
        Map<String, EndpointHealth> out = new HashMap<>();
        for (List<String> chunk : JdbcDeliveryQueue.chunks(new ArrayList<>(endpointIds))) {
            List<Object> args = new ArrayList<>(chunk);
            args.add(tenant.projectId());
            args.add(Rows.mode(tenant.mode()));
            sql.query(
                    "SELECT " + COLUMNS + " FROM endpoint_health WHERE endpoint_id IN (" + Sql.marks(chunk.size())
                            + ") AND project_id = ? AND mode = ?",
                    rs -> out.put(rs.getString("endpoint_id"), row(rs)),
                    args.toArray());
        }
        return out;
    }

    @Override
    public void enabledAgain(Tenant tenant, String endpointId) {
        sql.update(
                "UPDATE endpoint_health SET failing_since = NULL WHERE endpoint_id = ? AND project_id = ? AND mode = ?",
                endpointId,
                tenant.projectId(),
                Rows.mode(tenant.mode()));
    }

    /** Writes the endpoint's health whole, inserting its row at its first attempt. */
    void save(String endpointId, Tenant tenant, EndpointHealth h) {
        sql.update(
                "INSERT INTO endpoint_health (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                        + "ON CONFLICT (endpoint_id) DO UPDATE SET window_start = excluded.window_start, "
                        + "attempts = excluded.attempts, failures = excluded.failures, "
                        + "previous_attempts = excluded.previous_attempts, "
                        + "previous_failures = excluded.previous_failures, last_success_at = excluded.last_success_at, "
                        + "failing_since = excluded.failing_since, last_failure_at = excluded.last_failure_at, "
                        + "last_failure = excluded.last_failure",
                endpointId,
                tenant.projectId(),
                Rows.mode(tenant.mode()),
                h.windowStart(),
                h.attempts(),
                h.failures(),
                h.previousAttempts(),
                h.previousFailures(),
                h.lastSuccessAt(),
                h.failingSince(),
                h.lastFailureAt(),
                h.lastFailure());
    }

    static EndpointHealth row(ResultSet rs) throws SQLException {
        return new EndpointHealth(
                Sql.instant(rs, "window_start"),
                rs.getInt("attempts"),
                rs.getInt("failures"),
                rs.getInt("previous_attempts"),
                rs.getInt("previous_failures"),
                Sql.instant(rs, "last_success_at"),
                Sql.instant(rs, "failing_since"),
                Sql.instant(rs, "last_failure_at"),
                rs.getString("last_failure"));
    }
}

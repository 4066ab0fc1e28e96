package dev.idem.store.internal;

import dev.idem.core.Page;
import dev.idem.core.Tenant;
import dev.idem.core.fanout.Application;
import dev.idem.core.store.ApplicationRepository;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/** Table {@code applications}; a uid is unique among a tenant's applications that are not deleted (a partial index). */
final class JdbcApplications implements ApplicationRepository {
    private static final String COLUMNS =
            "id, project_id, mode, uid, name, metadata, rate_limit, deleted, created_at, updated_at";
    private final Sql sql;
    private final Dialect dialect;

    JdbcApplications(Sql sql, Dialect dialect) {
        this.sql = sql;
        this.dialect = dialect;
    }

    @Override
    public boolean insert(Application a) {
        // the uid index decides, also against a concurrent insert: no read-then-write race
        return sql.update(
                        "INSERT INTO applications (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                                + "ON CONFLICT DO NOTHING",
                        a.id(),
                        a.tenant().projectId(),
                        Rows.mode(a.tenant().mode()),
                        a.uid(),
                        a.name(),
                        a.metadataJson(),
                        a.rateLimit(),
                        a.deleted(),
                        a.createdAt(),
                        a.updatedAt())
                == 1;
    }

    @Override
    public Optional<Application> find(Tenant tenant, String reference) {
        // read once per group commit, as the endpoints a send fans out to are
        return sql.onePerGroup(
                select(reference), JdbcApplications::row, reference, tenant.projectId(), Rows.mode(tenant.mode()));
    }

    @Override
    public Optional<Application> findForUpdate(Tenant tenant, String reference) {
        return sql.one(
                select(reference) + dialect.forUpdate(),
                JdbcApplications::row,
                reference,
                tenant.projectId(),
                Rows.mode(tenant.mode()));
    }

    private static String select(String reference) {
        String match = Application.isId(reference) ? "id = ?" : "uid = ? AND NOT deleted";
        return "SELECT " + COLUMNS + " FROM applications WHERE " + match + " AND project_id = ? AND mode = ?";
    }

    @Override
    public Page<Application> list(Tenant tenant, int limit, String startingAfter) {
        return Pages.after(
                sql,
                "SELECT " + COLUMNS + " FROM applications WHERE project_id = ? AND mode = ? AND NOT deleted",
                List.of(tenant.projectId(), Rows.mode(tenant.mode())),
                startingAfter,
                limit,
                JdbcApplications::row);
    }

    @Override
    public boolean uidTaken(Tenant tenant, String uid, String exceptId) {
        return sql.one(
                        "SELECT 1 FROM applications WHERE project_id = ? AND mode = ? AND uid = ? AND id <> ? "
                                + "AND NOT deleted",
                        rs -> true,
                        tenant.projectId(),
                        Rows.mode(tenant.mode()),
                        uid,
                        exceptId)
                .isPresent();
    }

    @Override
    public boolean update(Application a) {
        boolean hadLimit = sql.one(
                        "SELECT rate_limit FROM applications WHERE id = ? AND project_id = ? AND mode = ?"
                                + dialect.forUpdate(),
                        rs -> Sql.integer(rs, "rate_limit") != null,
                        a.id(),
                        a.tenant().projectId(),
                        Rows.mode(a.tenant().mode()))
                .orElse(true);
        boolean updated = sql.update(
                        "UPDATE applications SET uid = ?, name = ?, metadata = ?, rate_limit = ?, deleted = ?, "
                                + "updated_at = ? WHERE id = ? AND project_id = ? AND mode = ?",
                        a.uid(),
                        a.name(),
                        a.metadataJson(),
                        a.rateLimit(),
                        a.deleted(),
                        a.updatedAt(),
                        a.id(),
                        a.tenant().projectId(),
                        Rows.mode(a.tenant().mode()))
                == 1;
        if (updated && !hadLimit && a.rateLimit() != null)
            EndpointLimits.limit(
                    sql,
                    dialect,
                    a.tenant(),
                    sql.query(
                            "SELECT id FROM endpoints WHERE project_id = ? AND mode = ? AND application_id = ? "
                                    + "ORDER BY id",
                            rs -> rs.getString(1),
                            a.tenant().projectId(),
                            Rows.mode(a.tenant().mode()),
                            a.id()));
        return updated;
    }

    @Override
    public java.util.Set<String> rateLimited(Tenant tenant, java.util.Collection<String> ids) {
        java.util.Set<String> out = new java.util.HashSet<>();
        for (List<String> chunk : JdbcDeliveryQueue.chunks(List.copyOf(ids))) {
            Object[] args = new Object[chunk.size() + 2];
            args[0] = tenant.projectId();
            args[1] = Rows.mode(tenant.mode());
            for (int i = 0; i < chunk.size(); i++) args[i + 2] = chunk.get(i);
            out.addAll(sql.query(
                    "SELECT id FROM applications WHERE project_id = ? AND mode = ? AND rate_limit IS NOT NULL "
                            + "AND id IN (" + Sql.marks(chunk.size()) + ")",
                    rs -> rs.getString(1),
                    args));
        }
        return out;
    }

    private static Application row(ResultSet rs) throws SQLException {
        return new Application(
                rs.getString("id"),
                Rows.tenant(rs, ""),
                rs.getString("uid"),
                rs.getString("name"),
                rs.getString("metadata"),
                Sql.integer(rs, "rate_limit"),
                rs.getBoolean("deleted"),
                Sql.instant(rs, "created_at"),
                Sql.instant(rs, "updated_at"));
    }
}

package dev.idem.store.internal;

import dev.idem.core.Page;
import dev.idem.core.Source;
import dev.idem.core.Tenant;
import dev.idem.core.store.SourceRepository;
import dev.idem.store.SecretCipher;
import dev.idem.store.internal.SealedColumns.Column;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

final class JdbcSources implements SourceRepository {
    private static final String COLUMNS = "id, project_id, mode, name, scheme, secret, previous_secrets, header, "
            + "encoding, tolerance_ms, destination, dedup, rate_limit, deleted, created_at, updated_at";
    private final Sql sql;
    private final Dialect dialect;
    private final SecretCipher cipher;

    JdbcSources(Sql sql, Dialect dialect, SecretCipher cipher) {
        this.sql = sql;
        this.dialect = dialect;
        this.cipher = cipher;
    }

    @Override
    public void insert(Source s) {
        sql.update(
                "INSERT INTO sources (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                        + bool(s.deleted()) + ", ?, ?)",
                s.id(),
                s.tenant().projectId(),
                Rows.mode(s.tenant().mode()),
                s.name(),
                s.scheme(),
                sealedSecret(s),
                sealedRetired(s),
                s.header(),
                s.encoding(),
                s.tolerance().toMillis(),
                s.destination(),
                s.dedup(),
                s.rateLimit(),
                s.createdAt(),
                s.updatedAt());
    }

    @Override
    public Optional<Source> find(Tenant tenant, String id) {
        return sql.one(
                "SELECT " + COLUMNS + " FROM sources WHERE id = ? AND project_id = ? AND mode = ?",
                this::row,
                id,
                tenant.projectId(),
                Rows.mode(tenant.mode()));
    }

    @Override
    public Optional<Source> findForUpdate(Tenant tenant, String id) {
        return sql.one(
                "SELECT " + COLUMNS + " FROM sources WHERE id = ? AND project_id = ? AND mode = ?"
                        + dialect.forUpdate(),
                this::row,
                id,
                tenant.projectId(),
                Rows.mode(tenant.mode()));
    }

    @Override
    public Optional<Source> findForIngest(String id) {
        return sql.one("SELECT " + COLUMNS + " FROM sources WHERE id = ? AND NOT deleted", this::row, id);
    }

    @Override
    public List<String> idsCreatedSince(java.time.Instant since) {
        return sql.query("SELECT id FROM sources WHERE created_at >= ? AND NOT deleted", rs -> rs.getString(1), since);
    }

    @Override
    public Page<Source> list(Tenant tenant, int limit, String startingAfter) {
        StringBuilder q = new StringBuilder("SELECT " + COLUMNS + " FROM sources WHERE project_id = ? AND mode = ?");
        List<Object> args = new ArrayList<>(List.of(tenant.projectId(), Rows.mode(tenant.mode())));
        if (startingAfter != null) {
            q.append(" AND id < ?");
            args.add(startingAfter);
        }
        return Pages.fetch(sql, q, args, limit, this::row);
    }

    @Override
    public boolean update(Source s) {
        return sql.update(
                        "UPDATE sources SET name = ?, scheme = ?, secret = ?, previous_secrets = ?, header = ?, "
                                + "encoding = ?, tolerance_ms = ?, destination = ?, dedup = ?, rate_limit = ?, deleted = "
                                + bool(s.deleted()) + ", updated_at = ? "
                                + "WHERE id = ? AND project_id = ? AND mode = ?",
                        s.name(),
                        s.scheme(),
                        sealedSecret(s),
                        sealedRetired(s),
                        s.header(),
                        s.encoding(),
                        s.tolerance().toMillis(),
                        s.destination(),
                        s.dedup(),
                        s.rateLimit(),
                        s.updatedAt(),
                        s.id(),
                        s.tenant().projectId(),
                        Rows.mode(s.tenant().mode()))
                == 1;
    }

    /** A literal both dialects read as a boolean (the binder has no boolean type). */
    private static String bool(boolean b) {
        return b ? "TRUE" : "FALSE";
    }

    private String sealedSecret(Source s) {
        Column c = SealedColumns.SOURCE_CURRENT;
        return cipher.seal(c.table(), s.id(), c.column(), s.secret());
    }

    private String sealedRetired(Source s) {
        Column c = SealedColumns.SOURCE_RETIRED;
        String json = RetiredCodec.encode(s.retiredSecrets());
        return json == null ? null : cipher.seal(c.table(), s.id(), c.column(), json);
    }

    private Source row(ResultSet rs) throws SQLException {
        String id = rs.getString("id");
        Column cur = SealedColumns.SOURCE_CURRENT;
        Column ret = SealedColumns.SOURCE_RETIRED;
        String retired = rs.getString(ret.column());
        return new Source(
                id,
                Rows.tenant(rs, ""),
                rs.getString("name"),
                rs.getString("scheme"),
                cipher.open(cur.table(), id, cur.column(), rs.getString(cur.column())),
                retired == null
                        ? List.of()
                        : RetiredCodec.decode(cipher.open(ret.table(), id, ret.column(), retired), ret.toString()),
                rs.getString("header"),
                rs.getString("encoding"),
                Duration.ofMillis(rs.getLong("tolerance_ms")),
                rs.getString("destination"),
                rs.getString("dedup"),
                rs.getInt("rate_limit"),
                rs.getBoolean("deleted"),
                Sql.instant(rs, "created_at"),
                Sql.instant(rs, "updated_at"));
    }
}

package dev.idem.store.internal;

import dev.idem.core.ApiKey;
import dev.idem.core.store.ApiKeyRepository;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

final class JdbcApiKeys implements ApiKeyRepository {
    private static final String COLUMNS = "id, project_id, mode, hash, display_prefix, created_at, revoked_at";
    private final Sql sql;

    JdbcApiKeys(Sql sql) {
        this.sql = sql;
    }

    @Override
    public void insert(ApiKey k) {
        sql.update(
                "INSERT INTO api_keys (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?)",
                k.id(),
                k.tenant().projectId(),
                Rows.mode(k.tenant().mode()),
                k.hash(),
                k.displayPrefix(),
                k.createdAt(),
                k.revokedAt());
    }

    @Override
    public Optional<ApiKey> findByHash(String hash) {
        return sql.one("SELECT " + COLUMNS + " FROM api_keys WHERE hash = ?", JdbcApiKeys::map, hash);
    }

    @Override
    public List<ApiKey> list(String projectId) {
        return sql.query(
                "SELECT " + COLUMNS + " FROM api_keys WHERE project_id = ? ORDER BY created_at DESC, id DESC",
                JdbcApiKeys::map,
                projectId);
    }

    @Override
    public boolean revoke(String keyId, Instant at) {
        return sql.update("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", at, keyId) == 1;
    }

    private static ApiKey map(ResultSet rs) throws SQLException {
        return new ApiKey(
                rs.getString("id"),
                Rows.tenant(rs, ""),
                rs.getString("hash"),
                rs.getString("display_prefix"),
                Sql.instant(rs, "created_at"),
                Sql.instant(rs, "revoked_at"));
    }
}

package dev.idem.store.internal;

import dev.idem.core.IdempotencyRecord;
import dev.idem.core.Tenant;
import dev.idem.core.store.IdempotencyRepository;
import java.time.Instant;
import java.util.Optional;

final class JdbcIdempotency implements IdempotencyRepository {
    private static final String KEY = "project_id = ? AND mode = ? AND idem_key = ?";
    private final Sql sql;
    private final Dialect dialect;

    JdbcIdempotency(Sql sql, Dialect dialect) {
        this.sql = sql;
        this.dialect = dialect;
    }

    @Override
    public Optional<IdempotencyRecord> find(Tenant tenant, String key) {
        return sql.one("SELECT fingerprint, created_at, locked_until, response_status, response_body FROM idempotency_records WHERE " + KEY,
                rs -> new IdempotencyRecord(tenant, key, rs.getString("fingerprint"), Sql.instant(rs, "created_at"),
                        Sql.instant(rs, "locked_until"), Sql.integer(rs, "response_status"), rs.getBytes("response_body")),
                tenant.projectId(), Rows.mode(tenant.mode()), key);
    }

    @Override
    public boolean tryInsert(IdempotencyRecord r) {
        return sql.update("INSERT INTO idempotency_records (project_id, mode, idem_key, fingerprint, created_at, locked_until, "
                        + "response_status, response_body) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                r.tenant().projectId(), Rows.mode(r.tenant().mode()), r.key(), r.fingerprint(), r.createdAt(), r.lockedUntil(),
                r.responseStatus(), r.responseBody()) == 1;
    }

    @Override
    public boolean takeOverExpired(Tenant tenant, String key, String fingerprint, Instant now, Instant lockedUntil) {
        return sql.update("UPDATE idempotency_records SET fingerprint = ?, locked_until = ? WHERE " + KEY
                        + " AND response_status IS NULL AND locked_until < ?",
                fingerprint, lockedUntil, tenant.projectId(), Rows.mode(tenant.mode()), key, now) == 1;
    }

    @Override
    public boolean saveProgress(Tenant tenant, String key, byte[] progress, Instant expectedLock, Instant newLock) {
        return sql.update("UPDATE idempotency_records SET response_body = ?, locked_until = ? WHERE " + KEY
                        + " AND response_status IS NULL AND locked_until = ?",
                progress, newLock, tenant.projectId(), Rows.mode(tenant.mode()), key, expectedLock) == 1;
    }

    @Override
    public void complete(Tenant tenant, String key, int status, byte[] body) {
        sql.update("UPDATE idempotency_records SET response_status = ?, response_body = ?, locked_until = NULL WHERE " + KEY,
                status, body, tenant.projectId(), Rows.mode(tenant.mode()), key);
    }

    @Override
    public void delete(Tenant tenant, String key) {
        sql.update("DELETE FROM idempotency_records WHERE " + KEY, tenant.projectId(), Rows.mode(tenant.mode()), key);
    }

    @Override
    public int pruneCreatedBefore(Instant before, int limit) {
        String row = dialect.rowId();
        return sql.update("DELETE FROM idempotency_records WHERE " + dialect.inSubquery(row, "SELECT " + row
                + " FROM idempotency_records WHERE created_at < ? ORDER BY created_at LIMIT ?"), before, limit);
    }
}

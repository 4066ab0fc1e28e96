package dev.idem.store.internal;

import dev.idem.core.DedupClaim;
import dev.idem.core.IdempotencyRecord;
import dev.idem.core.Tenant;
import dev.idem.core.store.IdempotencyRepository;
import java.time.Instant;
import java.util.Optional;

/**
 * Both kinds of row of {@code idempotency_records}. A {@link DedupClaim} is stored as a completed record, so that no
 * request ever takes it for one in progress: {@code idem_key} = its key, {@code fingerprint} = its schedule id,
 * {@code created_at}, {@code response_status} 200, an empty {@code response_body}, no {@code locked_until}. One table
 * gives both one unique key and one pruner, and rows written before the record had a type of its own read the same.
 */
final class JdbcIdempotency implements IdempotencyRepository {
    private static final String KEY = "project_id = ? AND mode = ? AND idem_key = ?";
    private static final int DEDUP_STATUS = 200;
    private static final byte[] DEDUP_BODY = new byte[0];
    private final Sql sql;
    private final Dialect dialect;

    JdbcIdempotency(Sql sql, Dialect dialect) {
        this.sql = sql;
        this.dialect = dialect;
    }

    @Override
    public Optional<IdempotencyRecord> find(Tenant tenant, String key) {
        return sql.one(
                "SELECT fingerprint, created_at, locked_until, response_status, response_body FROM idempotency_records WHERE "
                        + KEY,
                rs -> new IdempotencyRecord(
                        tenant,
                        key,
                        rs.getString("fingerprint"),
                        Sql.instant(rs, "created_at"),
                        Sql.instant(rs, "locked_until"),
                        Sql.integer(rs, "response_status"),
                        rs.getBytes("response_body")),
                tenant.projectId(),
                Rows.mode(tenant.mode()),
                key);
    }

    private static final String INSERT_HEAD =
            "INSERT INTO idempotency_records (project_id, mode, idem_key, fingerprint, "
                    + "created_at, locked_until, response_status, response_body) VALUES ";
    private static final String INSERT_ROW = "(?, ?, ?, ?, ?, ?, ?, ?)";
    /** In a group commit, the returned key tells which of the held rows were written (GroupedInserts). */
    private static final String RESERVED_TAIL = " ON CONFLICT DO NOTHING RETURNING project_id, mode, idem_key";

    /**
     * In a group commit this answers at once, and the row is written with the group's other reservations in one
     * statement before the COMMIT: false when an earlier work of the group holds the key, else true; a key that another
     * transaction turns out to hold sends the work to run alone, where this is answered by the database
     * ({@link GroupedInserts}).
     */
    @Override
    public boolean tryInsert(IdempotencyRecord r) {
        Object[] row = {
            r.tenant().projectId(),
            Rows.mode(r.tenant().mode()),
            r.key(),
            r.fingerprint(),
            r.createdAt(),
            r.lockedUntil(),
            r.responseStatus(),
            r.responseBody()
        };
        GroupedInserts held = sql.heldInserts();
        if (held != null) return held.reserve(INSERT_HEAD, INSERT_ROW, RESERVED_TAIL, 3, row);
        return sql.update(INSERT_HEAD + INSERT_ROW + " ON CONFLICT DO NOTHING", row) == 1;
    }

    @Override
    public boolean takeOverExpired(Tenant tenant, String key, String fingerprint, Instant now, Instant lockedUntil) {
        return sql.update(
                        "UPDATE idempotency_records SET fingerprint = ?, locked_until = ? WHERE " + KEY
                                + " AND response_status IS NULL AND locked_until < ?",
                        fingerprint,
                        lockedUntil,
                        tenant.projectId(),
                        Rows.mode(tenant.mode()),
                        key,
                        now)
                == 1;
    }

    @Override
    public boolean saveProgress(Tenant tenant, String key, byte[] progress, Instant expectedLock, Instant newLock) {
        return sql.update(
                        "UPDATE idempotency_records SET response_body = ?, locked_until = ? WHERE " + KEY
                                + " AND response_status IS NULL AND locked_until = ?",
                        progress,
                        newLock,
                        tenant.projectId(),
                        Rows.mode(tenant.mode()),
                        key,
                        expectedLock)
                == 1;
    }

    /** In a group commit, a record this work inserted that is not written yet is completed before it is written. */
    @Override
    public void complete(Tenant tenant, String key, int status, byte[] body) {
        GroupedInserts held = sql.heldInserts();
        Object[] row = held == null ? null : held.unwritten(tenant.projectId(), Rows.mode(tenant.mode()), key);
        if (row != null) {
            row[5] = null;
            row[6] = status;
            row[7] = body;
            return;
        }
        sql.update(
                "UPDATE idempotency_records SET response_status = ?, response_body = ?, locked_until = NULL WHERE "
                        + KEY,
                status,
                body,
                tenant.projectId(),
                Rows.mode(tenant.mode()),
                key);
    }

    @Override
    public void delete(Tenant tenant, String key) {
        sql.update("DELETE FROM idempotency_records WHERE " + KEY, tenant.projectId(), Rows.mode(tenant.mode()), key);
    }

    @Override
    public boolean tryInsertDedup(DedupClaim c) {
        // in a group commit, held with the group's other reservations (tryInsert)
        return tryInsert(new IdempotencyRecord(
                c.tenant(), c.key(), c.scheduleId(), c.createdAt(), null, DEDUP_STATUS, DEDUP_BODY));
    }

    @Override
    public Optional<DedupClaim> findDedup(Tenant tenant, String key) {
        return sql.one(
                "SELECT fingerprint, created_at FROM idempotency_records WHERE " + KEY,
                rs -> new DedupClaim(tenant, key, rs.getString("fingerprint"), Sql.instant(rs, "created_at")),
                tenant.projectId(),
                Rows.mode(tenant.mode()),
                key);
    }

    @Override
    public void deleteDedup(Tenant tenant, String key) {
        delete(tenant, key);
    }

    @Override
    public int pruneCreatedBefore(Instant before, int limit) {
        String row = dialect.rowId();
        return sql.update(
                "DELETE FROM idempotency_records WHERE "
                        + dialect.inSubquery(
                                row,
                                "SELECT " + row
                                        + " FROM idempotency_records WHERE created_at < ? ORDER BY created_at LIMIT ?"),
                before,
                limit);
    }
}

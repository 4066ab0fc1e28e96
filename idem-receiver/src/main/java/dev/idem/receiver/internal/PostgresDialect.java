package dev.idem.receiver.internal;

import java.sql.SQLException;

/** PostgreSQL: the claim and the state read fused into one statement; SQLSTATEs for conflicts. Not public API. */
public final class PostgresDialect implements Dialect {
    static final PostgresDialect INSTANCE = new PostgresDialect();

    private PostgresDialect() {}

    // a data-modifying CTE: a duplicate is decided in one round trip instead of an insert and then a read
    @Override
    public String claimQuery(String table) {
        return "WITH ins AS (" + insertIfAbsent(table) + " RETURNING idem_key)"
                + " SELECT 'inserted', NULL, CAST(NULL AS BIGINT), NULL FROM ins"
                + " UNION ALL SELECT status, claim_token, claimed_until, result FROM " + table
                + " WHERE idem_key = ? AND NOT EXISTS (SELECT 1 FROM ins)";
    }

    // CREATE INDEX IF NOT EXISTS can still lose a race with a replica creating the same index: 42P07
    @Override
    public boolean indexAlreadyExists(SQLException e) {
        return "42P07".equals(e.getSQLState());
    }

    // serialization failure, deadlock detected
    @Override
    public boolean isTransient(SQLException e) {
        return Dialect.anyInChain(e, s -> "40001".equals(s.getSQLState()) || "40P01".equals(s.getSQLState()));
    }
}

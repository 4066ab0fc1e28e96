package dev.idem.receiver.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * MySQL and MariaDB: {@code INSERT IGNORE} instead of {@code ON CONFLICT}, a locking read for the latest commit
 * under REPEATABLE READ, {@code DELETE … LIMIT}, and no {@code CREATE INDEX IF NOT EXISTS}. Not public API.
 */
final class MySqlDialect implements Dialect {
    static final MySqlDialect INSTANCE = new MySqlDialect();
    private static final int DUPLICATE_KEY_NAME = 1061;
    private static final int LOCK_WAIT_TIMEOUT = 1205;
    private static final int DEADLOCK = 1213;

    private MySqlDialect() {}

    // MEDIUMTEXT: TEXT is 64 KiB there; binary collation so keys differing only in case stay distinct
    @Override
    public List<String> createInbox(String table) {
        return List.of(
                Dialect.inboxTable(table, "MEDIUMTEXT", " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"),
                "CREATE INDEX " + table + "_created ON " + table + " (created_at)");
    }

    @Override
    public boolean indexAlreadyExists(SQLException e) {
        return e.getErrorCode() == DUPLICATE_KEY_NAME;
    }

    @Override
    public String insertIfAbsent(String table) {
        return "INSERT IGNORE INTO " + table + INBOX_COLUMNS;
    }

    // REPEATABLE READ reads the transaction's snapshot; a shared lock reads the latest commit instead
    @Override
    public String selectStateInTransaction(String table) {
        return selectState(table) + " LOCK IN SHARE MODE";
    }

    @Override
    public String prune(String table) {
        return "DELETE FROM " + table + PRUNABLE + " LIMIT ?";
    }

    // no ON CONFLICT … DO UPDATE … WHERE: insert if absent, else raise only a lower sequence
    @Override
    public boolean advanceSequence(Connection tx, String table, String resource, long sequence) throws SQLException {
        if (JdbcRows.update(
                        tx,
                        "INSERT IGNORE INTO " + table + " (resource, last_sequence) VALUES (?, ?)",
                        resource,
                        sequence)
                == 1) return true;
        return JdbcRows.update(
                        tx,
                        "UPDATE " + table + " SET last_sequence = ? WHERE resource = ? AND last_sequence < ?",
                        sequence,
                        resource,
                        sequence)
                == 1;
    }

    @Override
    public boolean isTransient(SQLException e) {
        return Dialect.anyInChain(
                e,
                s -> "40001".equals(s.getSQLState())
                        || s.getErrorCode() == DEADLOCK
                        || s.getErrorCode() == LOCK_WAIT_TIMEOUT);
    }
}

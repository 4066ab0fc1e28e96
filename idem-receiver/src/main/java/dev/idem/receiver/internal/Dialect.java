package dev.idem.receiver.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;

/** What differs between the databases the JDBC inbox runs on. Not public API. */
public enum Dialect {
    POSTGRESQL, MYSQL, SQLITE;

    /** Detects the dialect from the driver's product name. */
    public static Dialect of(Connection c) throws SQLException {
        String name = c.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT);
        if (name.contains("postgres")) return POSTGRESQL;
        if (name.contains("mysql") || name.contains("mariadb")) return MYSQL;
        if (name.contains("sqlite")) return SQLITE;
        throw new SQLException("the idem inbox supports PostgreSQL, MySQL/MariaDB and SQLite, not " + name);
    }

    /** The statements that create the inbox table and its index if absent. */
    public List<String> createInbox(String table) {
        String text = this == MYSQL ? "MEDIUMTEXT" : "TEXT";
        String ddl = "CREATE TABLE IF NOT EXISTS " + table + " ("
                + "idem_key VARCHAR(255) NOT NULL PRIMARY KEY, "
                + "status VARCHAR(8) NOT NULL, "
                + "claim_token VARCHAR(40), "
                + "claimed_until BIGINT, "
                + "result " + text + ", "
                + "created_at BIGINT NOT NULL, "
                + "completed_at BIGINT)" + (this == MYSQL ? " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin" : "");
        String index = this == MYSQL
                ? "CREATE INDEX " + table + "_created ON " + table + " (created_at)"
                : "CREATE INDEX IF NOT EXISTS " + table + "_created ON " + table + " (created_at)";
        return List.of(ddl, index);
    }

    /** Atomic insert-if-absent of a whole row; the update count is 1 when inserted, 0 when the key existed. */
    public String insertIfAbsent(String table) {
        String cols = " (idem_key, status, claim_token, claimed_until, created_at, completed_at) VALUES (?, ?, ?, ?, ?, ?)";
        return switch (this) {
            case POSTGRESQL, SQLITE -> "INSERT INTO " + table + cols + " ON CONFLICT (idem_key) DO NOTHING";
            case MYSQL -> "INSERT IGNORE INTO " + table + cols;
        };
    }

    /**
     * PostgreSQL only (else null): the insert-if-absent and, when the key exists, its state, in one round trip.
     * Params: the six insert values, then the key again. One row {@code ('inserted', …)} when inserted; the
     * existing row's state otherwise; no row when the key was committed by a transaction this statement
     * waited for (its snapshot predates that commit), and then a separate {@link #selectState} read decides.
     */
    public String claimQuery(String table) {
        if (this != POSTGRESQL) return null;
        return "WITH ins AS (" + insertIfAbsent(table) + " RETURNING idem_key)"
                + " SELECT 'inserted', NULL, CAST(NULL AS BIGINT), NULL FROM ins"
                + " UNION ALL SELECT status, claim_token, claimed_until, result FROM " + table
                + " WHERE idem_key = ? AND NOT EXISTS (SELECT 1 FROM ins)";
    }

    /** Reads a row's state; on MySQL a locking read, so it sees the latest commit under REPEATABLE READ. */
    public String selectState(String table) {
        String sql = "SELECT status, claim_token, claimed_until, result FROM " + table + " WHERE idem_key = ?";
        return this == MYSQL ? sql + " LOCK IN SHARE MODE" : sql;
    }

    /** Deletes up to N rows older than a cutoff that are not live claims; params: cutoff, now, limit. */
    public String prune(String table) {
        String where = " WHERE created_at < ? AND (status = 'done' OR claimed_until < ?)";
        return switch (this) {
            case MYSQL -> "DELETE FROM " + table + where + " LIMIT ?";
            case POSTGRESQL, SQLITE -> "DELETE FROM " + table + " WHERE idem_key IN (SELECT idem_key FROM " + table
                    + where + " LIMIT ?)";
        };
    }

    /** Whether an exception means "try the same transaction again": deadlock, serialization, busy. */
    public static boolean isTransient(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s) {
                String state = s.getSQLState();
                if (state != null && (state.equals("40001") || state.equals("40P01"))) return true;
                if (s.getErrorCode() == 1213 || s.getErrorCode() == 1205) return true; // MySQL deadlock, lock wait
                String msg = String.valueOf(s.getMessage());
                if (msg.contains("SQLITE_BUSY") || msg.contains("SQLITE_LOCKED")) return true;
            }
        }
        return false;
    }

    /** Table names are spliced into SQL, so only plain identifiers are allowed. */
    public static String checkIdentifier(String name) {
        if (name == null || !name.matches("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?")) {
            throw new IllegalArgumentException("table name must be a plain SQL identifier, optionally schema-qualified: " + name);
        }
        return name;
    }
}

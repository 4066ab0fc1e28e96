package dev.idem.client.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;

/**
 * Everything that differs between the databases an outbox table lives in, and nothing else. Times are epoch
 * milliseconds (BIGINT) from the relay's clock, so one schema and one set of statements serve all three.
 */
public enum OutboxDialect {
    POSTGRESQL,
    MYSQL,
    SQLITE;

    /**
     * The W3C trace context of the transaction that wrote the row, so the relay's call continues that trace. Added
     * to tables made before they existed by {@link #addTraceColumns}.
     */
    private static final String TRACE_COLUMNS = "traceparent VARCHAR(55), tracestate VARCHAR(512)";

    private static final String COLUMNS = "id VARCHAR(64) NOT NULL PRIMARY KEY, "
            + "request %s NOT NULL, "
            + "status VARCHAR(16) NOT NULL, "
            + "attempts INT NOT NULL, "
            + "available_at BIGINT NOT NULL, "
            + "claimed_by VARCHAR(100), "
            + "first_sent_at BIGINT, "
            + "schedule_id VARCHAR(64), "
            + "last_error TEXT, "
            + "created_at BIGINT NOT NULL, "
            + "sent_at BIGINT, "
            + TRACE_COLUMNS;

    public static OutboxDialect of(Connection c) throws SQLException {
        String name = c.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT);
        if (name.contains("postgres")) return POSTGRESQL;
        if (name.contains("mysql") || name.contains("mariadb")) return MYSQL;
        if (name.contains("sqlite")) return SQLITE;
        throw new SQLException("the Idem outbox supports PostgreSQL, MySQL/MariaDB and SQLite, not " + name);
    }

    /**
     * The table and its index of due rows, if absent. PostgreSQL and SQLite index only pending rows (a partial
     * index stays as small as the backlog however many sent rows accumulate); MySQL has no partial index.
     */
    public List<String> createTable(String table) {
        if (this == MYSQL)
            return List.of("CREATE TABLE IF NOT EXISTS " + table + " (" + COLUMNS.formatted("MEDIUMTEXT") + ", INDEX "
                    + table.replace('.', '_')
                    + "_due (status, available_at)) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
        return List.of(
                "CREATE TABLE IF NOT EXISTS " + table + " (" + COLUMNS.formatted("TEXT") + ")",
                "CREATE INDEX IF NOT EXISTS " + table.replace('.', '_') + "_due ON " + table
                        + " (available_at) WHERE status = 'pending'");
    }

    /** Params: id, request, available at, created at, traceparent, tracestate. */
    public String insert(String table) {
        return "INSERT INTO " + table
                + " (id, request, status, attempts, available_at, created_at, traceparent, tracestate)"
                + " VALUES (?, ?, 'pending', 0, ?, ?, ?, ?)";
    }

    /** Probes whether a table has the trace columns: fails on a table made before them. */
    public String probeTraceColumns(String table) {
        return "SELECT traceparent, tracestate FROM " + table + " WHERE 1 = 0";
    }

    /** Adds the trace columns to a table made before them (one statement each: SQLite adds one at a time). */
    public List<String> addTraceColumns(String table) {
        return List.of(
                "ALTER TABLE " + table + " ADD COLUMN traceparent VARCHAR(55)",
                "ALTER TABLE " + table + " ADD COLUMN tracestate VARCHAR(512)");
    }

    /** Whether one {@code UPDATE … RETURNING} claims a batch (PostgreSQL, SQLite); else {@link #selectForClaim} then {@link #claimByIds}. */
    public boolean claimsInOneStatement() {
        return this != MYSQL;
    }

    private static String due(String table) {
        return "SELECT id FROM " + table
                + " WHERE status = 'pending' AND available_at <= ? ORDER BY available_at, id LIMIT ?";
    }

    private static String claimSet() {
        return " SET claimed_by = ?, available_at = ?, attempts = attempts + 1, first_sent_at = COALESCE(first_sent_at, ?)";
    }

    /**
     * Claims up to n due rows and returns them. Params: claim token, lease end, now, now, n. PostgreSQL skips rows
     * another relay is claiming at this instant (SKIP LOCKED); SQLite's one writer serialises the statement whole.
     */
    public String claimReturning(String table) {
        return "UPDATE " + table + claimSet() + " WHERE id IN (" + due(table)
                + (this == POSTGRESQL ? " FOR UPDATE SKIP LOCKED" : "")
                + ") RETURNING id, request, attempts, first_sent_at, traceparent, tracestate";
    }

    /** MySQL, first half of a claim transaction: lock up to n due rows, skipping locked ones. Params: now, n. */
    public String selectForClaim(String table) {
        return "SELECT id, request, attempts, first_sent_at, traceparent, tracestate FROM " + table
                + " WHERE status = 'pending' AND available_at <= ? ORDER BY available_at, id LIMIT ? FOR UPDATE SKIP LOCKED";
    }

    /** MySQL, second half: claim the rows locked. Params: token, lease end, now, then the ids. */
    public String claimByIds(String table, int ids) {
        return "UPDATE " + table + claimSet() + " WHERE id IN ("
                + String.join(", ", java.util.Collections.nCopies(ids, "?")) + ")";
    }

    /** Params: schedule id, now, row id, claim token. 0 rows: the claim was lost to another relay. */
    public String markSent(String table) {
        return "UPDATE " + table
                + " SET status = 'sent', schedule_id = ?, sent_at = ?, claimed_by = NULL, last_error = NULL WHERE id = ? AND claimed_by = ?";
    }

    /** Params: next attempt time, error, row id, claim token. */
    public String markRetry(String table) {
        return "UPDATE " + table
                + " SET available_at = ?, claimed_by = NULL, last_error = ? WHERE id = ? AND claimed_by = ?";
    }

    /** Params: error, row id, claim token. */
    public String markFailed(String table) {
        return "UPDATE " + table
                + " SET status = 'failed', claimed_by = NULL, last_error = ? WHERE id = ? AND claimed_by = ?";
    }

    /** A claimed row this relay will not send after all: back at once, its claim not counted. Params: now, row id, token. */
    public String release(String table) {
        return "UPDATE " + table
                + " SET available_at = ?, claimed_by = NULL, attempts = attempts - 1 WHERE id = ? AND claimed_by = ?";
    }

    public String select(String table) {
        return "SELECT id, request, status, attempts, available_at, claimed_by, first_sent_at, schedule_id, last_error, created_at, sent_at, traceparent, tracestate FROM "
                + table + " WHERE id = ?";
    }

    /** Deletes up to n rows sent before a cutoff. Params: cutoff, n. */
    public String pruneSent(String table) {
        String where = " WHERE status = 'sent' AND sent_at < ?";
        return this == MYSQL
                ? "DELETE FROM " + table + where + " LIMIT ?"
                : "DELETE FROM " + table + " WHERE id IN (SELECT id FROM " + table + where + " LIMIT ?)";
    }

    /** Table names are spliced into SQL, so only plain identifiers are allowed. */
    public static String checkIdentifier(String name) {
        if (name == null || !name.matches("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?"))
            throw new IllegalArgumentException(
                    "the outbox table name must be a plain SQL identifier, optionally schema-qualified: " + name);
        return name;
    }
}

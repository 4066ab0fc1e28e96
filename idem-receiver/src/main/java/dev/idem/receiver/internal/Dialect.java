package dev.idem.receiver.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;

/**
 * Everything that differs between the databases the receiver's JDBC pieces run on, and nothing else: the inbox
 * ({@code JdbcInbox}) and the sequence guard ({@code SequenceGuard}) hold no database-specific SQL of their own.
 * Modelled on db-scheduler's {@code JdbcCustomization}: the defaults are the statements every supported
 * database accepts, and each database overrides only where it differs ({@link PostgresDialect},
 * {@link MySqlDialect}, {@link SqliteDialect}). Not public API.
 */
public interface Dialect {

    /** Detects the dialect from the driver's product name. */
    static Dialect of(Connection c) throws SQLException {
        String name = c.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT);
        if (name.contains("postgres")) return PostgresDialect.INSTANCE;
        if (name.contains("mysql") || name.contains("mariadb")) return MySqlDialect.INSTANCE;
        if (name.contains("sqlite")) return SqliteDialect.INSTANCE;
        throw new SQLException("the idem inbox supports PostgreSQL, MySQL/MariaDB and SQLite, not " + name);
    }

    /** The statements that create the inbox table and its index if absent. */
    default List<String> createInbox(String table) {
        return List.of(
                inboxTable(table, "TEXT", ""),
                "CREATE INDEX IF NOT EXISTS " + table + "_created ON " + table + " (created_at)");
    }

    /** Whether {@code e}, thrown by the CREATE INDEX of {@link #createInbox}, means the index is already there (a replica raced us, or the database has no IF NOT EXISTS for indexes). */
    default boolean indexAlreadyExists(SQLException e) {
        return false;
    }

    /**
     * Atomic insert-if-absent of a whole inbox row; the update count is 1 when inserted, 0 when the key existed.
     * Params: key, status, claim token, claimed until, created at, completed at.
     */
    default String insertIfAbsent(String table) {
        return "INSERT INTO " + table + INBOX_COLUMNS + " ON CONFLICT (idem_key) DO NOTHING";
    }

    /**
     * The insert-if-absent and, when the key exists, its state, in one round trip; null when the database has no
     * such statement (then {@link #insertIfAbsent} and a {@link #selectState} read do it in two). Params: the six
     * insert values, then the key again. One row {@code ('inserted', …)} when inserted; the existing row's state
     * otherwise; no row when the key was committed by a transaction this statement waited for, and then a separate
     * {@link #selectState} read decides.
     */
    default String claimQuery(String table) {
        return null;
    }

    /** Reads a row's state (status, claim token, claimed until, result) in autocommit mode. */
    default String selectState(String table) {
        return "SELECT status, claim_token, claimed_until, result FROM " + table + " WHERE idem_key = ?";
    }

    /**
     * Reads a row's state inside the claiming transaction, after the insert-if-absent found the key: it must see
     * the latest commit, which under a snapshot isolation level (MySQL's REPEATABLE READ) needs a locking read.
     */
    default String selectStateInTransaction(String table) {
        return selectState(table);
    }

    /** Deletes up to N rows older than a cutoff that are not live claims; params: cutoff, now, limit. */
    default String prune(String table) {
        return "DELETE FROM " + table + " WHERE idem_key IN (SELECT idem_key FROM " + table + PRUNABLE + " LIMIT ?)";
    }

    /** The statement that creates a sequence guard's table if absent. */
    default String createSequenceTable(String table) {
        return "CREATE TABLE IF NOT EXISTS " + table + " (resource VARCHAR(255) NOT NULL PRIMARY KEY,"
                + " last_sequence BIGINT NOT NULL)";
    }

    /**
     * Records {@code sequence} for {@code resource} in {@code table} if it is newer than the last one, atomically,
     * on {@code tx}; true when it was newer.
     */
    default boolean advanceSequence(Connection tx, String table, String resource, long sequence) throws SQLException {
        return JdbcRows.update(
                        tx,
                        "INSERT INTO " + table + " AS s (resource, last_sequence) VALUES (?, ?)"
                                + " ON CONFLICT (resource) DO UPDATE SET last_sequence = excluded.last_sequence"
                                + " WHERE s.last_sequence < excluded.last_sequence",
                        resource,
                        sequence)
                == 1;
    }

    /** Whether an exception means "try the same transaction again": deadlock, serialization failure, busy. */
    boolean isTransient(SQLException e);

    /** The inbox table's column list and value placeholders, for {@link #insertIfAbsent}. */
    String INBOX_COLUMNS =
            " (idem_key, status, claim_token, claimed_until, created_at, completed_at) VALUES (?, ?, ?, ?, ?, ?)";

    /** Rows old enough to prune that are not live claims; params: cutoff, now. */
    String PRUNABLE = " WHERE created_at < ? AND (status = 'done' OR claimed_until < ?)";

    /** The inbox table's DDL with the database's text type and table options. */
    static String inboxTable(String table, String textType, String tableOptions) {
        return "CREATE TABLE IF NOT EXISTS " + table + " ("
                + "idem_key VARCHAR(255) NOT NULL PRIMARY KEY, "
                + "status VARCHAR(8) NOT NULL, "
                + "claim_token VARCHAR(40), "
                + "claimed_until BIGINT, "
                + "result " + textType + ", "
                + "created_at BIGINT NOT NULL, "
                + "completed_at BIGINT)" + tableOptions;
    }

    /** Whether any SQLException in the cause chain matches. */
    static boolean anyInChain(SQLException e, java.util.function.Predicate<SQLException> test) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s && test.test(s)) return true;
        }
        return false;
    }

    /** Table names are spliced into SQL, so only plain identifiers are allowed. */
    static String checkIdentifier(String name) {
        if (name == null || !name.matches("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?")) {
            throw new IllegalArgumentException(
                    "table name must be a plain SQL identifier, optionally schema-qualified: " + name);
        }
        return name;
    }
}

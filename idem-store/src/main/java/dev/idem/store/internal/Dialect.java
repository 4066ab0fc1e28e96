package dev.idem.store.internal;

import com.zaxxer.hikari.HikariConfig;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.locks.Lock;

/**
 * Everything that differs between the databases, and nothing else: how a write transaction starts,
 * how rows are locked, whose clock "now" is, and how the due-signal travels. The SQL of the
 * repositories is otherwise shared (both databases speak {@code ON CONFLICT}, {@code RETURNING} and
 * partial indexes).
 */
public interface Dialect {
    /** {@code sqlite} or {@code postgresql}; also the migration folder's name. */
    String name();

    /** Driver and pool settings for this database. */
    void configure(HikariConfig config);

    /**
     * Driver settings of the node registry's single connection, on top of {@link #configure}: a renewal must fail
     * within seconds when the database stops answering, not hang on a socket.
     */
    void configureLiveness(HikariConfig config);

    /**
     * Held around every write transaction of this process. SQLite has one writer per database, and
     * queueing for it in Java is fair and never times out, where SQLite's busy handler polls.
     */
    Lock writeLock();

    void begin(Connection c) throws SQLException;

    /** Starts a read-only transaction (ended by {@link #commit} or {@link #rollback}, then {@link #afterRead}). */
    void beginRead(Connection c) throws SQLException;

    /** Returns a connection used for a read-only transaction to its normal state. */
    void afterRead(Connection c) throws SQLException;

    void commit(Connection c) throws SQLException;

    void rollback(Connection c) throws SQLException;

    /** Appended to a single-row select to lock the row until commit; empty where the writer is single. */
    String forUpdate();

    /** Like {@link #forUpdate()}, locking only the rows of table alias {@code alias} in a join. */
    String forUpdateOf(String alias);

    /**
     * {@code column} matches a row of {@code subquery} (a bounded, single-column select): the shape the
     * planner turns into one run of the subquery and lookups by key.
     */
    String inSubquery(String column, String subquery);

    /** The physical row address pseudo-column ({@code ctid}, {@code rowid}): deletes by it need no key. */
    String rowId();

    /** Whether claims lock rows with {@code FOR UPDATE SKIP LOCKED} (else the single writer serialises them). */
    boolean skipLocked();

    /**
     * A table expression over the entries of a JSON object bound as one text parameter, with text columns
     * {@code key} and {@code value} ({@code json_each_text} on PostgreSQL, {@code json_each} on SQLite).
     */
    String jsonEntries();

    /**
     * A statement that serialises flow-controlled claims across processes until the transaction ends, or null where
     * the single writer already does.
     */
    String flowControlLock();

    /** An SQL expression for the database's current time in epoch milliseconds. */
    String databaseNowMillis();

    /**
     * An id of the open write transaction that outlives its connection, taken just before COMMIT, so that a COMMIT
     * whose answer was lost (the connection died) can be asked about on another connection; null when the
     * transaction wrote nothing, or where a failed COMMIT is always a rollback (SQLite, in process).
     */
    Long transactionId(Connection c) throws SQLException;

    /**
     * What became of transaction {@code id} ({@link #transactionId}): {@code committed}, {@code aborted},
     * {@code in progress}, or null when the database can no longer tell.
     */
    String transactionStatus(Connection c, long id) throws SQLException;

    static Dialect forName(String name) {
        return switch (name) {
            case "postgresql" -> new PostgresDialect();
            case "sqlite" -> new SqliteDialect();
            default -> throw new IllegalArgumentException("unknown dialect " + name);
        };
    }
}

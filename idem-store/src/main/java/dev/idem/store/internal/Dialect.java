package dev.idem.store.internal;

import com.zaxxer.hikari.HikariConfig;
import dev.idem.store.StoreConfig;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.locks.Lock;
import javax.sql.DataSource;

/**
 * Everything that differs between the databases, and nothing else: how a write transaction starts, how rows are
 * locked, whether claims overlap, whose clock "now" is, how a batch of outcomes is written and how the due-signal
 * travels. The SQL of the repositories is otherwise shared (both databases speak {@code ON CONFLICT},
 * {@code RETURNING} and partial indexes), and no class outside the dialects asks which database it runs on:
 * it asks the dialect for a fragment, a capability or a strategy (db-scheduler's {@code JdbcCustomization} is the
 * model).
 */
public interface Dialect {
    /** {@code sqlite} or {@code postgresql}; also the migration folder's name, and what logs and readiness show. */
    String name();

    /** The file the database lives in, or null where it is a server (or in memory): it must exist to open an existing store. */
    Path databaseFile(String jdbcUrl);

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

    /**
     * A FROM item, joined to the items before it, for the one row of {@code table} (as {@code alias}) whose primary key
     * {@code on} matches: read by a primary-key lookup for each row before it, whatever the planner's statistics say,
     * so that a statement bounded by a LIMIT reads no more of {@code table} than that LIMIT. With {@code lock} the row
     * is locked as it is read, passing over a row another transaction holds ({@link #skipLockedClause}).
     */
    String oneRowByKey(String table, String alias, String on, boolean lock);

    /**
     * Appends to {@code q} the condition that keeps one tenant's rows in a list read newest first by id (schedules,
     * deliveries, messages), and its arguments to {@code args}: {@code project_id = ? AND mode = ?}, and where the
     * tenant's list indexes are keyed on a narrower form of the tenant than the two texts, the condition on that form
     * through which the planner reaches them.
     */
    void listedTenant(StringBuilder q, List<Object> args, String projectId, String mode);

    /** The physical row address pseudo-column ({@code ctid}, {@code rowid}): deletes by it need no key. */
    String rowId();

    /**
     * Appended after {@link #forUpdate()} or {@link #forUpdateOf} to pass over rows another transaction holds instead
     * of waiting for them ({@code SKIP LOCKED}); empty where the writer is single.
     */
    String skipLockedClause();

    /**
     * Whether claims of the delivery queue may run at the same time, each locking only the rows it takes
     * ({@link #skipLockedClause}): then a claim needs no write transaction around it, and a second claim loop
     * pays. False where one writer serialises every claim (SQLite), so a second claim would only queue.
     */
    boolean concurrentClaims();

    /**
     * Whether the {@code RETURNING} of an {@code UPDATE … FROM} may read the joined table's columns, so that a claim
     * leases its rows and returns them with their schedules in one statement. SQLite's reads only the updated table.
     */
    boolean returningReadsJoinedTables();

    /**
     * {@code column} is none of {@code values}, as a condition and its parameters: one array parameter on PostgreSQL,
     * one parameter per value where there are no arrays.
     */
    Clause noneOf(Sql sql, String column, String[] values);

    /** A condition to splice into a statement's {@code WHERE}, with the parameters it binds, in order. */
    record Clause(String sql, Object... args) {}

    /** How a batch of outcomes is written: set-based statements over arrays, or JDBC batches of one row each. */
    Completion completion();

    /** The channel behind {@link dev.idem.core.store.Store#onDeliveriesDue}: through the database, or in process. */
    DueSignal dueSignal(StoreConfig config, DataSource pool);

    /**
     * Keeps the planner's statistics of the queue's tables fresh, on the reaper's beat: {@link PgStatistics} on
     * PostgreSQL (whose plans go quadratic on statistics older than a burst); nothing on SQLite.
     */
    void refreshQueueStatistics(Transactions transactions);

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

    /**
     * A statement that, run after secrets were rewritten, leaves the earlier versions of their rows nowhere in the
     * database's own files (SQLite: its write-ahead log, checkpointed and truncated); or null when there is none.
     */
    default String afterSecretsRewritten() {
        return null;
    }

    /**
     * Prepares the database's files before the schema is migrated, on a connection in autocommit mode. SQLite: turns on
     * incremental vacuum (rewriting an existing file once, see {@link SqliteDialect}); nothing on PostgreSQL.
     */
    default void beforeMigrate(Connection c) throws SQLException {}

    /**
     * Returns up to {@code pages} of the database file's free pages (what deletes left) to the file system, in the
     * open write transaction of {@code sql}; returns how many it returned. Nothing on PostgreSQL, whose autovacuum
     * makes dead rows' space reusable and whose file sizes follow the rows kept.
     */
    default long reclaimFreePages(Sql sql, int pages) {
        return 0;
    }

    static Dialect forName(String name) {
        return switch (name) {
            case "postgresql" -> new PostgresDialect();
            case "sqlite" -> new SqliteDialect();
            default -> throw new IllegalArgumentException("unknown dialect " + name);
        };
    }
}

package dev.idem.store.internal;

import com.zaxxer.hikari.HikariConfig;
import dev.idem.store.StoreConfig;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import javax.sql.DataSource;

/**
 * SQLite: one writer. Write transactions queue on a fair Java lock and then take SQLite's write lock
 * up front ({@code BEGIN IMMEDIATE}), so a transaction never has to upgrade a read lock (the cause of
 * SQLITE_BUSY that no busy timeout can cure). WAL lets readers run beside the writer; the busy timeout
 * covers another process opening the same file.
 */
final class SqliteDialect implements Dialect {
    private final Lock writeLock = new ReentrantLock(true);

    @Override
    public String name() {
        return "sqlite";
    }

    /** The file of a {@code jdbc:sqlite:} URL, or null for an in-memory database. */
    @Override
    public Path databaseFile(String jdbcUrl) {
        String file = jdbcUrl.substring(PREFIX.length());
        int query = file.indexOf('?');
        if (query >= 0) file = file.substring(0, query);
        if (file.startsWith("file:")) file = file.substring("file:".length());
        if (file.isEmpty() || file.startsWith(":memory:")) return null;
        return Path.of(file).toAbsolutePath();
    }

    private static final String PREFIX = "jdbc:sqlite:";

    @Override
    public void configure(HikariConfig config) {
        config.addDataSourceProperty("journal_mode", "WAL");
        // FULL: a commit survives power loss, since a 201 promises the schedule is durable.
        config.addDataSourceProperty("synchronous", "FULL");
        config.addDataSourceProperty("busy_timeout", "30000");
        config.addDataSourceProperty("foreign_keys", "true");
        // Freed space is zeroed, so a secret's value before it was sealed or re-sealed does not stay in the file.
        config.addDataSourceProperty("secure_delete", "true");
    }

    /** The log may hold the rows' earlier pages until a checkpoint copies them back and truncates it. */
    @Override
    public String afterSecretsRewritten() {
        return "PRAGMA wal_checkpoint(TRUNCATE)";
    }

    /**
     * Incremental vacuum, so the file shrinks by what the pruner deletes instead of keeping every page it ever held.
     * SQLite stores the mode in the file and takes a new mode only before the first table is made or through a
     * {@code VACUUM}, which rewrites the whole file (and needs its size again in free disk space): a new file costs
     * nothing, and a file made before Idem set the mode is rewritten once, on its first open since.
     */
    @Override
    public void beforeMigrate(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            int mode;
            try (ResultSet rs = s.executeQuery("PRAGMA auto_vacuum")) {
                mode = rs.next() ? rs.getInt(1) : 0;
            }
            if (mode == INCREMENTAL) return;
            s.execute("PRAGMA auto_vacuum = " + INCREMENTAL);
            s.execute("VACUUM");
        }
    }

    private static final int INCREMENTAL = 2;

    /**
     * {@code PRAGMA incremental_vacuum} frees one page per result row it steps through: {@code executeUpdate} of a
     * plain statement runs it to the end ({@code sqlite3_exec}), where {@code execute} would stop at the first page.
     * The pages go back to the file system at the next checkpoint of the write-ahead log.
     */
    @Override
    public long reclaimFreePages(Sql sql, int pages) {
        long free = sql.one("PRAGMA freelist_count", rs -> rs.getLong(1)).orElse(0L);
        if (free == 0) return 0;
        try (Statement s = sql.connection().createStatement()) {
            s.executeUpdate("PRAGMA incremental_vacuum(" + pages + ")");
        } catch (SQLException e) {
            throw Sql.failure("PRAGMA incremental_vacuum", e);
        }
        return free - sql.one("PRAGMA freelist_count", rs -> rs.getLong(1)).orElse(0L);
    }

    /** A local file: nothing to time out beyond the busy timeout. */
    @Override
    public void configureLiveness(HikariConfig config) {}

    @Override
    public Lock writeLock() {
        return writeLock;
    }

    @Override
    public void begin(Connection c) throws SQLException {
        // Issued by hand (autocommit stays on): the driver's own transaction handling begins a new
        // transaction right after each commit, which would hold the write lock between uses.
        try (Statement s = c.createStatement()) {
            s.execute("BEGIN IMMEDIATE");
        }
    }

    /** A deferred transaction takes no write lock; {@code query_only} turns a stray write into an error, not a wait. */
    @Override
    public void beginRead(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("PRAGMA query_only = 1");
            s.execute("BEGIN DEFERRED");
        }
    }

    @Override
    public void afterRead(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("PRAGMA query_only = 0");
        }
    }

    @Override
    public void commit(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("COMMIT");
        }
    }

    @Override
    public void rollback(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("ROLLBACK");
        }
    }

    @Override
    public String forUpdate() {
        return "";
    }

    @Override
    public String forUpdateOf(String alias) {
        return "";
    }

    @Override
    public String inSubquery(String column, String subquery) {
        return column + " IN (" + subquery + ")";
    }

    /** A join: SQLite plans nested loops with lookups by key anyway, and has neither LATERAL nor row locks. */
    @Override
    public String oneRowByKey(String table, String alias, String on, boolean lock) {
        return " JOIN " + table + " " + alias + " ON " + on;
    }

    /**
     * The tenant list indexes hold project and mode themselves: SQLite has no built-in text hash to key them on, and
     * an index on a function registered from Java would leave the file unwritable to anything without it (the sqlite3
     * shell, a backup tool that rebuilds indexes).
     */
    @Override
    public void listedTenant(StringBuilder q, List<Object> args, String projectId, String mode) {
        q.append("project_id = ? AND mode = ?");
        args.addAll(List.of(projectId, mode));
    }

    @Override
    public String rowId() {
        return "rowid";
    }

    @Override
    public String skipLockedClause() {
        return "";
    }

    /** One writer: claims queue for it whatever the number of claim loops. */
    @Override
    public boolean concurrentClaims() {
        return false;
    }

    /** SQLite's {@code RETURNING} reads only the table it updates. */
    @Override
    public boolean returningReadsJoinedTables() {
        return false;
    }

    /** No arrays: one parameter per value (a node keeps at most a few hundred claims, far below SQLite's 32,766 parameters). */
    @Override
    public Clause noneOf(Sql sql, String column, String[] values) {
        return new Clause(column + " NOT IN (" + Sql.marks(values.length) + ")", (Object[]) values);
    }

    /** A statement costs no round trip here: JDBC batches, one row per statement. */
    @Override
    public Completion completion() {
        return new BatchCompletion();
    }

    /** One process owns the database: the signal stays in process. */
    @Override
    public DueSignal dueSignal(StoreConfig config, DataSource pool) {
        return new LocalDueSignal();
    }

    /** SQLite's planner is not misled the same way; nothing to refresh. */
    @Override
    public void refreshQueueStatistics(Transactions transactions) {}

    @Override
    public String jsonEntries() {
        return "json_each(?)";
    }

    @Override
    public String flowControlLock() {
        return null;
    }

    @Override
    public String databaseNowMillis() {
        return "CAST(unixepoch('subsec') * 1000 AS INTEGER)";
    }

    /** The database is a file in this process: a COMMIT that fails has not happened. */
    @Override
    public Long transactionId(Connection c) {
        return null;
    }

    @Override
    public String transactionStatus(Connection c, long id) {
        throw new UnsupportedOperationException("SQLite transactions have no id to ask about");
    }
}

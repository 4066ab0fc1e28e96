package dev.idem.store.internal;

import com.zaxxer.hikari.HikariConfig;
import dev.idem.store.StoreConfig;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import javax.sql.DataSource;

/** PostgreSQL: row locks, {@code SKIP LOCKED} claims, arrays, the database clock, {@code LISTEN/NOTIFY}. */
final class PostgresDialect implements Dialect {
    /** The tenant lists' index key: the same text in the migrations (V15, V46) and in every list's condition. */
    private static final String TENANT_HASH = "hashtextextended((project_id || mode) COLLATE \"C\", 0)";

    @Override
    public String name() {
        return "postgresql";
    }

    @Override
    public Path databaseFile(String jdbcUrl) {
        return null;
    }

    @Override
    public void configure(HikariConfig config) {
        config.addDataSourceProperty("reWriteBatchedInserts", "true");
        config.addDataSourceProperty("ApplicationName", "idem");
        config.addDataSourceProperty("tcpKeepAlive", "true");
        // Idem's transactions last milliseconds. One idle this long belongs to a frozen process (SIGSTOP, a stalled
        // VM):
        // PostgreSQL ends it, so its row locks cannot stall the node that takes over its claims.
        config.setConnectionInitSql(IDLE_IN_TRANSACTION);
    }

    static final String IDLE_IN_TRANSACTION = "SET idle_in_transaction_session_timeout = 10000";

    /** Seconds: a renewal runs every 2 s; a read that waits longer than this on a silent network is a lost connection. */
    @Override
    public void configureLiveness(HikariConfig config) {
        // a takeover waits at most 2 s for a row lock (a frozen node's transaction holds it until PostgreSQL ends it):
        // it fails and is tried again on the next scan, and this node's own renewals never wait behind it
        config.setConnectionInitSql(IDLE_IN_TRANSACTION + "; SET lock_timeout = 2000");
        config.addDataSourceProperty("ApplicationName", "idem-liveness");
        config.addDataSourceProperty("connectTimeout", "3");
        config.addDataSourceProperty("socketTimeout", "5");
    }

    @Override
    public Lock writeLock() {
        return NoLock.INSTANCE;
    }

    @Override
    public void begin(Connection c) throws SQLException {
        c.setAutoCommit(false);
    }

    @Override
    public void beginRead(Connection c) throws SQLException {
        c.setAutoCommit(false);
        try (Statement s = c.createStatement()) {
            s.execute("SET TRANSACTION READ ONLY");
        }
    }

    @Override
    public void afterRead(Connection c) {}

    @Override
    public void commit(Connection c) throws SQLException {
        c.commit();
        c.setAutoCommit(true);
    }

    @Override
    public void rollback(Connection c) throws SQLException {
        c.rollback();
        c.setAutoCommit(true);
    }

    @Override
    public String forUpdate() {
        return " FOR UPDATE";
    }

    @Override
    public String forUpdateOf(String alias) {
        return " FOR UPDATE OF " + alias;
    }

    /** {@code IN (subquery)} may become a hash join over a scan of the whole table; {@code ARRAY()} runs once. */
    @Override
    public String inSubquery(String column, String subquery) {
        return column + " = ANY(ARRAY(" + subquery + "))";
    }

    /**
     * A lateral subquery the planner may not flatten into an ordinary join ({@code OFFSET 0}, or the lock): a nested
     * loop of primary-key lookups. As a join, fresh statistics of {@code schedules} made the claim hash-join a sequential
     * scan of every schedule, and stale statistics of {@code deliveries} made its last step scan the due index once per
     * picked row (idem-engine/README.md, "Plans that stay linear").
     */
    @Override
    public String oneRowByKey(String table, String alias, String on, boolean lock) {
        // OFFSET 0 keeps the planner from pulling the lookup up into a join and from pushing the outer query's
        // conditions into it: pushed in, a status condition let a stale-statistics plan walk the status-partial
        // index for each row (deliveries_due: 3,734 rows filtered per row, 0.5 s per claim in auto_explain)
        // instead of looking the key up
        return " CROSS JOIN LATERAL (SELECT * FROM " + table + " " + alias + " WHERE " + on + " OFFSET 0"
                + (lock ? forUpdate() + skipLockedClause() : "") + ") " + alias;
    }

    /**
     * The tenant list indexes ({@code schedules_tenant}, {@code deliveries_tenant}, {@code messages_tenant}) are keyed
     * on an 8-byte hash of project and mode, then the id, instead of the two texts (about 37 bytes) and the id, which
     * halves their entries (docs/operations.md, "What a finished delivery costs"). The condition repeats the index's
     * expression word for word, or the planner does not match it; it still compares project and mode, so two tenants
     * that share a hash only share index pages, never rows.
     */
    @Override
    public void listedTenant(StringBuilder q, List<Object> args, String projectId, String mode) {
        q.append(TENANT_HASH)
                .append(" = hashtextextended((CAST(? AS TEXT) || CAST(? AS TEXT)) COLLATE \"C\", 0)")
                .append(" AND project_id = ? AND mode = ?");
        args.addAll(List.of(projectId, mode, projectId, mode));
    }

    @Override
    public String rowId() {
        return "ctid";
    }

    @Override
    public String skipLockedClause() {
        return " SKIP LOCKED";
    }

    @Override
    public boolean concurrentClaims() {
        return true;
    }

    @Override
    public boolean returningReadsJoinedTables() {
        return true;
    }

    /** One array parameter, so the statement's text is the same whatever the number of values. */
    @Override
    public Clause noneOf(Sql sql, String column, String[] values) {
        return new Clause("NOT (" + column + " = ANY(?::text[]))", sql.array("text", values));
    }

    /** Each step one statement over arrays ({@code unnest}): a batch costs a handful of round trips whatever its size. */
    @Override
    public Completion completion() {
        return new PgCompletion();
    }

    /** {@code LISTEN/NOTIFY}: every node hears every node. */
    @Override
    public DueSignal dueSignal(StoreConfig config, DataSource pool) {
        return new PgDueSignal(config, pool);
    }

    @Override
    public void refreshQueueStatistics(Transactions transactions) {
        transactions.write(sql -> {
            PgStatistics.refreshIfStale(sql);
            return null;
        });
    }

    @Override
    public String jsonEntries() {
        return "json_each_text(CAST(? AS json))";
    }

    /** A transaction-scoped advisory lock: two nodes counting one key's claims must not both see room for the last slot. */
    @Override
    public String flowControlLock() {
        return "SELECT pg_advisory_xact_lock(" + FLOW_CONTROL_LOCK + ")";
    }

    /** The advisory lock's key: any constant no other statement uses (the bytes of "idemflow"). */
    private static final long FLOW_CONTROL_LOCK = 0x6964656d666c6f77L;

    @Override
    public String databaseNowMillis() {
        return "CAST(FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) AS BIGINT)";
    }

    /**
     * {@code txid_current_if_assigned()}: one round trip before each COMMIT of {@link dev.idem.core.store.Store#inTransaction}
     * (not of the queue's batches). A backend terminated while its COMMIT flushes WAL commits and then dies before
     * answering: in one run of PostgresStoreTroubleTest (350 backends terminated under 306 creates), 26 COMMITs lost
     * their answer and 21 of them had committed. {@code txid_status} (PostgreSQL 10+) tells them apart.
     */
    @Override
    public Long transactionId(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                java.sql.ResultSet rs = s.executeQuery("SELECT txid_current_if_assigned()")) {
            rs.next();
            long id = rs.getLong(1);
            return rs.wasNull() ? null : id;
        }
    }

    @Override
    public String transactionStatus(Connection c, long id) throws SQLException {
        try (java.sql.PreparedStatement ps = c.prepareStatement("SELECT txid_status(?)")) {
            ps.setLong(1, id);
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    /** PostgreSQL's row locks do the work; nothing to hold in Java. */
    enum NoLock implements Lock {
        INSTANCE;

        @Override
        public void lock() {}

        @Override
        public void lockInterruptibly() {}

        @Override
        public boolean tryLock() {
            return true;
        }

        @Override
        public boolean tryLock(long time, TimeUnit unit) {
            return true;
        }

        @Override
        public void unlock() {}

        @Override
        public Condition newCondition() {
            throw new UnsupportedOperationException();
        }
    }
}

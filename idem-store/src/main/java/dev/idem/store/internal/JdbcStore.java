package dev.idem.store.internal;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.core.store.CommitOutcomeUnknownException;
import dev.idem.core.store.DeliveryQueue;
import dev.idem.core.store.NodeRegistry;
import dev.idem.core.store.Store;
import dev.idem.core.store.StoreException;
import dev.idem.core.store.StoreTx;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.concurrent.locks.Lock;
import java.util.function.Function;

/** The {@link Store} over a pooled JDBC data source and one {@link Dialect}. */
public final class JdbcStore implements Store {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(JdbcStore.class);
    private final HikariDataSource pool;
    private final Dialect dialect;
    private final DueSignal signal;
    private final JdbcDeliveryQueue queue;
    private final JdbcNodes nodes;
    private final java.util.function.Supplier<HikariDataSource> livenessPoolFactory;
    private HikariDataSource livenessPool;
    private boolean closed;

    private JdbcStore(HikariDataSource pool, Dialect dialect, DueSignal signal, Clock clock, boolean databaseClock,
                      java.util.function.Supplier<HikariDataSource> livenessPoolFactory) {
        this.pool = pool;
        this.dialect = dialect;
        this.signal = signal;
        this.queue = new JdbcDeliveryQueue(this, clock, databaseClock);
        this.nodes = new JdbcNodes(this, queue);
        this.livenessPoolFactory = livenessPoolFactory;
    }

    /**
     * A store over a migrated pool; it owns the pool from now on, and the liveness pool {@code livenessPoolFactory}
     * makes when the node registry is first used (a single connection, so a busy main pool never delays a renewal).
     */
    public static JdbcStore create(HikariDataSource pool, Dialect dialect, dev.idem.store.StoreConfig config, Clock clock,
                                   java.util.function.Supplier<HikariDataSource> livenessPoolFactory) {
        DueSignal signal = dialect.skipLocked() ? new PgDueSignal(config, pool) : new LocalDueSignal();
        return new JdbcStore(pool, dialect, signal, clock, config.databaseClock(), livenessPoolFactory);
    }

    /** Work on a connection inside one transaction. */
    @FunctionalInterface
    interface TxWork<T> {
        T run(Sql sql) throws SQLException;
    }

    @Override
    public <T> T inTransaction(Function<StoreTx, T> work) {
        JdbcTx[] tx = new JdbcTx[1];
        T result = transactOn(pool, sql -> {
            tx[0] = new JdbcTx(sql, dialect, signal);
            return work.apply(tx[0]);
        }, true);
        if (tx[0].signalled()) signal.afterCommit();
        return result;
    }

    @Override
    public <T> T inReadTransaction(Function<StoreTx, T> work) {
        try (Connection c = pool.getConnection()) {
            try {
                dialect.beginRead(c);
            } catch (SQLException e) {
                pool.evictConnection(c);
                throw Sql.failure("BEGIN READ ONLY", e);
            }
            try {
                T result;
                try {
                    result = work.apply(new JdbcTx(new Sql(c), dialect, signal));
                } catch (Throwable t) {
                    rollbackQuietly(c, t);
                    throw sneaky(t);
                }
                try {
                    dialect.commit(c);
                } catch (SQLException e) {
                    rollbackQuietly(c, e);
                    throw Sql.failure("COMMIT", e);
                }
                return result;
            } finally {
                try {
                    dialect.afterRead(c);
                } catch (SQLException e) {
                    // A connection left read-only would fail the next writer that gets it.
                    pool.evictConnection(c);
                }
            }
        } catch (SQLException e) {
            throw Sql.failure("connect", e);
        }
    }

    /**
     * Runs {@code work} in one write transaction: committed when it returns, rolled back when it
     * throws (the exception propagates unchanged; SQL failures as {@link StoreException}).
     */
    <T> T transact(TxWork<T> work) {
        return transactOn(pool, work, false);
    }

    /** As {@link #transact}, on the liveness connection: the node registry's renewals and takeovers. */
    <T> T transactLiveness(TxWork<T> work) {
        return transactOn(livenessPool(), work, false);
    }

    private synchronized HikariDataSource livenessPool() {
        if (closed) throw new StoreException("the store is closed", null, false);
        if (livenessPool == null) livenessPool = livenessPoolFactory.get();
        return livenessPool;
    }

    /**
     * @param resolveLostCommit when the COMMIT's answer is lost with its connection, ask the database on another
     *     connection whether it committed: the result is returned if it did, a transient {@link StoreException} says
     *     nothing happened if it did not, a {@link CommitOutcomeUnknownException} when it cannot be told
     */
    private <T> T transactOn(HikariDataSource source, TxWork<T> work, boolean resolveLostCommit) {
        Lock lock = dialect.writeLock();
        if (lock instanceof java.util.concurrent.locks.ReentrantLock r && r.isHeldByCurrentThread())
            // The inner transaction would wait for the outer one's write lock forever.
            throw new IllegalStateException("store transactions do not nest: this thread is already inside one");
        lock.lock();
        try (Connection c = source.getConnection()) {
            try {
                dialect.begin(c);
            } catch (SQLException e) {
                throw Sql.failure("BEGIN", e);
            }
            T result;
            Long id = null;
            try {
                result = work.run(new Sql(c));
                if (resolveLostCommit) id = dialect.transactionId(c);
            } catch (Throwable t) {
                rollbackQuietly(source, c, t);
                if (t instanceof SQLException e) throw Sql.failure("transaction", e);
                throw sneaky(t);
            }
            try {
                dialect.commit(c);
            } catch (SQLException e) {
                rollbackQuietly(source, c, e);
                if (id == null || !Sql.isTransient(e)) throw Sql.failure("COMMIT", e);
                String status = statusAfterLostCommit(id);
                log.warn("the connection was lost during the COMMIT of transaction {}; asked again, it is {}", id, status);
                if ("committed".equals(status)) return result;
                if ("aborted".equals(status)) throw Sql.failure("COMMIT (rolled back)", e);
                throw new CommitOutcomeUnknownException("the connection was lost during COMMIT and the database could not say whether"
                        + " transaction " + id + " committed (" + status + "): " + e.getMessage(), e);
            }
            return result;
        } catch (SQLException e) {
            throw Sql.failure("connect", e);
        } finally {
            lock.unlock();
        }
    }

    /**
     * What became of transaction {@code id} after its COMMIT lost its connection, asked on a fresh connection: a
     * terminated backend may still be finishing, so "in progress" and a failed ask are tried again for up to a second.
     */
    private String statusAfterLostCommit(long id) {
        String status = null;
        for (int attempt = 0; attempt < 10; attempt++) {
            try (Connection c = pool.getConnection()) {
                status = dialect.transactionStatus(c, id);
                if ("committed".equals(status) || "aborted".equals(status)) return status;
            } catch (SQLException | RuntimeException e) {
                status = "not asked: " + e.getMessage();
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return status;
            }
        }
        return status;
    }

    /** Work on a connection in autocommit mode (single statements, reads). */
    <T> T autocommit(TxWork<T> work) {
        try (Connection c = pool.getConnection()) {
            return work.run(new Sql(c));
        } catch (SQLException e) {
            throw Sql.failure("autocommit", e);
        }
    }

    private void rollbackQuietly(Connection c, Throwable cause) {
        rollbackQuietly(pool, c, cause);
    }

    private void rollbackQuietly(HikariDataSource source, Connection c, Throwable cause) {
        try {
            dialect.rollback(c);
        } catch (SQLException | RuntimeException e) {
            cause.addSuppressed(e);
            // A connection whose rollback failed may still hold the transaction: never reuse it.
            source.evictConnection(c);
        }
    }



    @SuppressWarnings("unchecked")
    private static <E extends Throwable> RuntimeException sneaky(Throwable t) throws E {
        throw (E) t;
    }

    Dialect dialectImpl() {
        return dialect;
    }

    DueSignal signal() {
        return signal;
    }

    @Override
    public DeliveryQueue queue() {
        return queue;
    }

    @Override
    public NodeRegistry nodes() {
        return nodes;
    }

    @Override
    public Subscription onDeliveriesDue(Runnable listener) {
        return signal.subscribe(listener);
    }

    @Override
    public String dialect() {
        return dialect.name();
    }

    @Override
    public boolean isReachable() {
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            s.setQueryTimeout(5);
            s.execute("SELECT 1");
            return true;
        } catch (SQLException | RuntimeException e) {
            return false;
        }
    }

    @Override
    public void close() {
        signal.close();
        HikariDataSource liveness;
        synchronized (this) {
            closed = true;
            liveness = livenessPool;
        }
        if (liveness != null) liveness.close();
        pool.close();
    }
}

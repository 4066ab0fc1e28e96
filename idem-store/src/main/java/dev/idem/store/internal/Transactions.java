package dev.idem.store.internal;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.core.store.CommitOutcomeUnknownException;
import dev.idem.core.store.StoreException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.locks.Lock;
import java.util.function.Supplier;

/**
 * Runs work on the connections of one pool, in the dialect's transactions: what the store, its queue and its node
 * registry share, so that none of them needs the others to begin or end a transaction. The store has two: one on the
 * main pool, one on the node registry's own connection.
 */
final class Transactions {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(Transactions.class);
    private final Dialect dialect;
    private final Supplier<HikariDataSource> pool;
    /** What bounds the wait for a connection when the database stops answering; null: the pool's own timeout. */
    private final StoreGate gate;
    /** Whether this thread is inside a write transaction (of any pool): grouped work must not wait from there. */
    private static final ThreadLocal<Boolean> WRITING = ThreadLocal.withInitial(() -> false);

    /** @param pool the pool, asked at each transaction (the liveness pool is made on first use and refused once closed) */
    Transactions(Dialect dialect, Supplier<HikariDataSource> pool) {
        this(dialect, pool, null);
    }

    /** On a pool whose connections are taken through {@code gate}. */
    Transactions(Dialect dialect, Supplier<HikariDataSource> pool, StoreGate gate) {
        this.dialect = dialect;
        this.pool = pool;
        this.gate = gate;
    }

    private Connection connection(HikariDataSource source) throws SQLException {
        return gate == null ? source.getConnection() : gate.connection();
    }

    /** Work on a connection inside one transaction. */
    @FunctionalInterface
    interface Work<T> {
        T run(Sql sql) throws SQLException;
    }

    /**
     * Runs {@code work} in one write transaction: committed when it returns, rolled back when it
     * throws (the exception propagates unchanged; SQL failures as {@link StoreException}).
     */
    <T> T write(Work<T> work) {
        return write(work, false);
    }

    /**
     * As {@link #write(Work)}.
     *
     * @param resolveLostCommit when the COMMIT's answer is lost with its connection, ask the database on another
     *     connection whether it committed: the result is returned if it did, a transient {@link StoreException} says
     *     nothing happened if it did not, a {@link CommitOutcomeUnknownException} when it cannot be told
     */
    <T> T write(Work<T> work, boolean resolveLostCommit) {
        HikariDataSource source = pool.get();
        Lock lock = dialect.writeLock();
        if (lock instanceof java.util.concurrent.locks.ReentrantLock r && r.isHeldByCurrentThread())
            // The inner transaction would wait for the outer one's write lock forever.
            throw new IllegalStateException("store transactions do not nest: this thread is already inside one");
        lock.lock();
        boolean outer = WRITING.get();
        WRITING.set(true);
        try (Connection c = connection(source)) {
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
                String status = statusAfterLostCommit(source, id);
                log.warn(
                        "the connection was lost during the COMMIT of transaction {}; asked again, it is {}",
                        id,
                        status);
                if ("committed".equals(status)) return result;
                if ("aborted".equals(status)) throw Sql.failure("COMMIT (rolled back)", e);
                throw new CommitOutcomeUnknownException(
                        "the connection was lost during COMMIT and the database could not say whether" + " transaction "
                                + id + " committed (" + status + "): " + e.getMessage(),
                        e);
            }
            return result;
        } catch (SQLException e) {
            throw Sql.failure("connect", e);
        } finally {
            WRITING.set(outer);
            lock.unlock();
        }
    }

    /** Whether the calling thread is inside a write transaction now. */
    static boolean writing() {
        return WRITING.get();
    }

    /** Runs {@code work}, which only reads, in one read-only transaction beside the writer (the dialect's way). */
    <T> T read(Work<T> work) {
        HikariDataSource source = pool.get();
        try (Connection c = connection(source)) {
            try {
                dialect.beginRead(c);
            } catch (SQLException e) {
                source.evictConnection(c);
                throw Sql.failure("BEGIN READ ONLY", e);
            }
            try {
                T result;
                try {
                    result = work.run(new Sql(c));
                } catch (Throwable t) {
                    rollbackQuietly(source, c, t);
                    throw sneaky(t);
                }
                try {
                    dialect.commit(c);
                } catch (SQLException e) {
                    rollbackQuietly(source, c, e);
                    throw Sql.failure("COMMIT", e);
                }
                return result;
            } finally {
                try {
                    dialect.afterRead(c);
                } catch (SQLException e) {
                    // A connection left read-only would fail the next writer that gets it.
                    source.evictConnection(c);
                }
            }
        } catch (SQLException e) {
            throw Sql.failure("connect", e);
        }
    }

    /** Work on a connection in autocommit mode (single statements, reads). */
    <T> T autocommit(Work<T> work) {
        try (Connection c = connection(pool.get())) {
            return work.run(new Sql(c));
        } catch (SQLException e) {
            throw Sql.failure("autocommit", e);
        }
    }

    /**
     * What became of transaction {@code id} after its COMMIT lost its connection, asked on a fresh connection: a
     * terminated backend may still be finishing, so "in progress" and a failed ask are tried again for up to a second.
     */
    private String statusAfterLostCommit(HikariDataSource source, long id) {
        String status = null;
        for (int attempt = 0; attempt < 10; attempt++) {
            try (Connection c = source.getConnection()) {
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
}

package dev.idem.store.internal;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.core.store.DeliveryQueue;
import dev.idem.core.store.NodeRegistry;
import dev.idem.core.store.Store;
import dev.idem.core.store.StoreException;
import dev.idem.core.store.StoreTx;
import dev.idem.store.SecretCipher;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.function.Function;

/**
 * The {@link Store} over a pooled JDBC data source and one {@link Dialect}: it wires the parts, each given only what
 * it uses ({@link Transactions} on a pool, the dialect, the due-signal), and owns the pools.
 */
public final class JdbcStore implements Store {
    private final HikariDataSource pool;
    private final Dialect dialect;
    private final DueSignal signal;
    private final Transactions transactions;
    private final Transactions livenessTransactions;
    private final JdbcDeliveryQueue queue;
    private final JdbcNodes nodes;
    private final java.util.function.Supplier<HikariDataSource> livenessPoolFactory;
    private final SecretCipher cipher;
    private HikariDataSource livenessPool;
    private boolean closed;

    private JdbcStore(
            HikariDataSource pool,
            Dialect dialect,
            DueSignal signal,
            Clock clock,
            boolean databaseClock,
            java.util.function.Supplier<HikariDataSource> livenessPoolFactory,
            SecretCipher cipher) {
        this.pool = pool;
        this.cipher = cipher;
        this.dialect = dialect;
        this.signal = signal;
        this.livenessPoolFactory = livenessPoolFactory;
        this.transactions = new Transactions(dialect, () -> pool);
        // the node registry's renewals and takeovers, on a connection of their own
        this.livenessTransactions = new Transactions(dialect, this::livenessPool);
        // the ids of what the queue writes itself (an alert's schedule and delivery, a buried row's attempt)
        this.queue = new JdbcDeliveryQueue(
                transactions,
                dialect,
                signal,
                clock,
                databaseClock,
                new dev.idem.core.IdGenerator(clock, new java.security.SecureRandom()));
        this.nodes = new JdbcNodes(livenessTransactions, queue);
    }

    /**
     * A store over a migrated pool; it owns the pool from now on, and the liveness pool {@code livenessPoolFactory}
     * makes when the node registry is first used (a single connection, so a busy main pool never delays a renewal).
     * Secrets are sealed and opened with {@code cipher}.
     */
    public static JdbcStore create(
            HikariDataSource pool,
            Dialect dialect,
            dev.idem.store.StoreConfig config,
            Clock clock,
            java.util.function.Supplier<HikariDataSource> livenessPoolFactory,
            SecretCipher cipher) {
        return new JdbcStore(
                pool,
                dialect,
                dialect.dueSignal(config, pool),
                clock,
                config.databaseClock(),
                livenessPoolFactory,
                cipher);
    }

    /** The secret columns' batch walker, over this store's pool and master keys. */
    public Resealing resealing() {
        return new Resealing(transactions, dialect, cipher);
    }

    @Override
    public <T> T inTransaction(Function<StoreTx, T> work) {
        JdbcTx[] tx = new JdbcTx[1];
        T result = transactions.write(
                sql -> {
                    tx[0] = new JdbcTx(sql, dialect, signal, cipher);
                    return work.apply(tx[0]);
                },
                true);
        if (tx[0].signalled()) signal.afterCommit();
        return result;
    }

    @Override
    public <T> T inReadTransaction(Function<StoreTx, T> work) {
        return transactions.read(sql -> work.apply(new JdbcTx(sql, dialect, signal, cipher)));
    }

    /** The main pool's transactions. */
    Transactions transactions() {
        return transactions;
    }

    /** The transactions of the node registry's own connection. */
    Transactions livenessTransactions() {
        return livenessTransactions;
    }

    private synchronized HikariDataSource livenessPool() {
        if (closed) throw new StoreException("the store is closed", null, false);
        if (livenessPool == null) livenessPool = livenessPoolFactory.get();
        return livenessPool;
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
    public boolean claimsConcurrently() {
        return dialect.concurrentClaims();
    }

    @Override
    public boolean isReachable() {
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
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

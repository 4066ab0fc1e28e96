package dev.idem.store.internal;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.core.store.DeliveryQueue;
import dev.idem.core.store.NodeRegistry;
import dev.idem.core.store.Store;
import dev.idem.core.store.StoreException;
import dev.idem.core.store.StoreTx;
import dev.idem.store.Resealing;
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
    private final java.util.function.Supplier<HikariDataSource> probePoolFactory;
    private final SecretCipher cipher;
    private final StoreGate gate;
    private final GroupCommit groupCommit;
    private HikariDataSource livenessPool;
    private HikariDataSource probePool;
    private boolean closed;

    private JdbcStore(
            HikariDataSource pool,
            Dialect dialect,
            DueSignal signal,
            Clock clock,
            boolean databaseClock,
            java.util.function.Supplier<HikariDataSource> livenessPoolFactory,
            java.util.function.Supplier<HikariDataSource> probePoolFactory,
            SecretCipher cipher) {
        this.pool = pool;
        this.probePoolFactory = probePoolFactory;
        this.cipher = cipher;
        this.dialect = dialect;
        this.signal = signal;
        this.livenessPoolFactory = livenessPoolFactory;
        this.gate = new StoreGate(pool, pool.getConnectionTimeout());
        this.transactions = new Transactions(dialect, () -> pool, gate);
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
        this.groupCommit = new GroupCommit(transactions, sql -> new JdbcTx(sql, dialect, signal, cipher), signal);
    }

    /**
     * A store over a migrated pool; it owns the pool from now on, and the liveness pool {@code livenessPoolFactory}
     * makes when the node registry is first used (a single connection, so a busy main pool never delays a renewal),
     * and the probe's pool {@code probePoolFactory} makes at the first {@link #isReachable()} (a single connection
     * too, so neither a busy main pool nor a long takeover makes the database look gone). Secrets are sealed and
     * opened with {@code cipher}.
     */
    public static JdbcStore create(
            HikariDataSource pool,
            Dialect dialect,
            dev.idem.store.StoreConfig config,
            Clock clock,
            java.util.function.Supplier<HikariDataSource> livenessPoolFactory,
            java.util.function.Supplier<HikariDataSource> probePoolFactory,
            SecretCipher cipher) {
        return new JdbcStore(
                pool,
                dialect,
                dialect.dueSignal(config, pool),
                clock,
                config.databaseClock(),
                livenessPoolFactory,
                probePoolFactory,
                cipher);
    }

    /** The secret columns' batch walker, over this store's pool and master keys. */
    public Resealing resealing() {
        return new ResealingWalk(transactions, dialect, cipher);
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
    public <T> T inGroupCommit(Function<StoreTx, T> work) {
        return groupCommit.run(work);
    }

    @Override
    public dev.idem.core.store.WriteGroups writeGroups() {
        long[] c = groupCommit.counts();
        return new dev.idem.core.store.WriteGroups(c[0], c[1], c[2]);
    }

    /** The group commit's writer (its counts, and a test's hook before its COMMIT). */
    GroupCommit groupCommit() {
        return groupCommit;
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

    private synchronized HikariDataSource probePool() {
        if (closed) throw new StoreException("the store is closed", null, false);
        if (probePool == null) probePool = probePoolFactory.get();
        return probePool;
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

    /**
     * Asks the database {@code SELECT 1} on a connection of its own, never queued behind the main pool's callers,
     * allowing {@link StoreGate#PROBE_BOUND} for the connection (the pool's own timeout for its very first one) and as
     * much for the answer. An answer opens the gate of the main pool; a failure (connection refused or broken, an
     * error) closes it, so that callers fail at once instead of waiting; no answer in time changes nothing there.
     */
    @Override
    public boolean isReachable() {
        try {
            boolean first;
            HikariDataSource probes;
            synchronized (this) {
                first = probePool == null;
                probes = probePool();
            }
            try (Connection c = first ? probes.getConnection() : StoreGate.borrow(probes, StoreGate.PROBE_BOUND);
                    Statement s = c.createStatement()) {
                s.setQueryTimeout((int) Math.max(1, StoreGate.PROBE_BOUND.toSeconds()));
                s.execute("SELECT 1");
            }
            gate.answered();
            return true;
        } catch (java.sql.SQLTransientConnectionException noConnection) {
            // no connection within the bound: a failure only when connecting failed, else the database is slow
            if (noConnection.getCause() != null) gate.failed();
            return false;
        } catch (SQLException e) {
            // an answer that did not come within the bound (the statement was cancelled) says nothing either
            if (!(e instanceof java.sql.SQLTimeoutException) && !"57014".equals(e.getSQLState())) gate.failed();
            return false;
        } catch (RuntimeException e) {
            gate.failed();
            return false;
        }
    }

    @Override
    public void close() {
        groupCommit.close();
        signal.close();
        HikariDataSource liveness;
        HikariDataSource probes;
        synchronized (this) {
            closed = true;
            liveness = livenessPool;
            probes = probePool;
        }
        if (liveness != null) liveness.close();
        if (probes != null) probes.close();
        pool.close();
    }
}

package dev.idem.store.internal;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.HikariPool;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;

/**
 * The gate in front of the main pool: how long a caller may wait for a connection, from what the store last learnt of
 * its database. Without it every caller waits out the pool's whole connection timeout when the database is gone (a
 * request thread parked for 5 s, hundreds of them under load), although the first failed connection attempt already
 * said that waiting will not help.
 *
 * <ul>
 *   <li><b>Open</b> (nothing says the database is gone): a caller waits for a connection in slices of {@link #SLICE},
 *       up to the pool's connection timeout in all. A slice that ends while the pool's last attempt to connect failed
 *       (HikariCP keeps that failure until a connection succeeds) closes the gate and fails the caller at once; so does
 *       a slice that ends after the gate closed meanwhile. A slice that ends with nothing failed means the pool is
 *       busy, and the caller waits on: queueing is right under load.</li>
 *   <li><b>Closed</b> (connecting failed, or a probe found the database failing): a caller takes an idle connection if
 *       the pool has one and fails at once otherwise (a transient failure, which the API answers 503 with {@code
 *       Retry-After}). Asking still starts a new connection attempt in the background, so the gate opens again on the
 *       first connection that succeeds, or on the next probe that gets an answer.</li>
 * </ul>
 *
 * Only a failure closes the gate, never slowness: a probe that gets no answer within its bound says nothing (on a
 * loaded machine a healthy database can be slow to answer, and failing every caller then would be worse than waiting);
 * a database that hangs is still bounded by the pool's connection timeout, and readiness turns on its own clock.
 *
 * <p>A probe's answer does not reconnect the pool: HikariCP retries its failed connections with a backoff that grows
 * to 5 s over a long outage, and until its next attempt succeeds it still reports the old failure, which closes the
 * gate again. So callers may get the transient failure for up to that backoff after the database is back.
 */
final class StoreGate {
    /** How long a caller waits before it looks again at whether the database failed. */
    static final Duration SLICE = Duration.ofMillis(250);
    /** A probe is allowed this long for its connection and as much for its query; longer counts as no answer. */
    static final Duration PROBE_BOUND = Duration.ofSeconds(1);

    private final HikariDataSource source;
    private final HikariPool pool;
    private final long timeoutMillis;
    private volatile boolean down;

    /** @param timeoutMillis the longest a caller waits for a connection while the database answers */
    StoreGate(HikariDataSource source, long timeoutMillis) {
        this.source = source;
        // the pool itself: only it takes a wait shorter than the configured connection timeout
        this.pool = (HikariPool) source.getHikariPoolMXBean();
        this.timeoutMillis = timeoutMillis;
    }

    /** Whether callers are failed at once: the database failed when last asked. */
    boolean closed() {
        return down;
    }

    /** A connection from the pool, within the bounds above. */
    Connection connection() throws SQLException {
        if (pool == null) return source.getConnection(); // a closed source: it says so itself
        if (closed()) {
            try {
                return opened(pool.getConnection(0));
            } catch (SQLTransientConnectionException none) {
                throw new SQLTransientConnectionException(
                        "the database failed when last asked, and the pool has no connection to it", "08001", none);
            }
        }
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (true) {
            long left = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            try {
                return opened(pool.getConnection(Math.max(0, Math.min(SLICE.toMillis(), left))));
            } catch (SQLTransientConnectionException timedOut) {
                if (timedOut.getCause() != null) failed(); // the pool's last attempt to connect failed
                if (closed() || left <= SLICE.toMillis()) throw timedOut;
            }
        }
    }

    /**
     * A connection from {@code source} within {@code bound}: HikariCP takes a wait shorter than its configured
     * connection timeout only from the pool itself.
     */
    static Connection borrow(HikariDataSource source, Duration bound) throws SQLException {
        HikariPool p = (HikariPool) source.getHikariPoolMXBean();
        return p == null ? source.getConnection() : p.getConnection(bound.toMillis());
    }

    private Connection opened(Connection c) {
        down = false;
        return c;
    }

    /** The database answered (a probe): callers wait for connections again. */
    void answered() {
        down = false;
    }

    /** The database failed (refused a connection, broke one, answered with an error): callers fail at once. */
    void failed() {
        down = true;
    }
}

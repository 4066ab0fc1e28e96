package dev.idem.store.testing;

import dev.idem.core.store.Store;
import dev.idem.store.JdbcStores;
import dev.idem.store.StoreConfig;
import java.time.Clock;

/**
 * A database made for one test (class): open as many stores on it as you like (two "nodes" on one
 * PostgreSQL database, say); {@link #close()} removes it. Stores default to the given clock, not the
 * database's, so tests can move time.
 */
public interface TestDatabase extends AutoCloseable {
    /** Where it is; {@code databaseClock} off. */
    StoreConfig config();

    /** A new store on this database (migrated on first open). The caller closes it. */
    default Store open(Clock clock) {
        return JdbcStores.open(config(), clock);
    }

    /** Deletes every row of every table, keeping the schema: a clean slate between tests. */
    void wipe();

    /** Drops the database (PostgreSQL, even with connections still open) or leaves the file to its temp dir. */
    @Override
    void close();
}

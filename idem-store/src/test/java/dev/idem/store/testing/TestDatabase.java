package dev.idem.store.testing;

import dev.idem.core.store.Store;
import dev.idem.store.JdbcStores;
import dev.idem.store.StoreConfig;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Clock;
import java.util.Properties;

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

    /** A plain JDBC connection to this database (as its config's user), for tests that read plans or write rows by SQL. */
    default Connection connect() throws SQLException {
        Properties p = new Properties();
        if (config().user() != null) p.setProperty("user", config().user());
        if (config().password() != null) p.setProperty("password", config().password());
        return DriverManager.getConnection(config().jdbcUrl(), p);
    }

    /** Deletes every row of every table, keeping the schema: a clean slate between tests. */
    void wipe();

    /** Drops the database (PostgreSQL, even with connections still open) or leaves the file to its temp dir. */
    @Override
    void close();
}

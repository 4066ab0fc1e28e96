package dev.idem.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.core.store.Store;
import dev.idem.core.store.StoreException;
import dev.idem.core.store.StoreNotFoundException;
import dev.idem.store.internal.Dialect;
import dev.idem.store.internal.JdbcStore;
import dev.idem.store.internal.SecretsAtRest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.Objects;
import org.flywaydb.core.Flyway;

/** Opens the JDBC {@link Store}: migrates the schema, then pools connections. */
public final class JdbcStores {
    /** The longest wait for a pooled connection before a store call fails with a transient {@link StoreException}. */
    public static final java.time.Duration CONNECTION_TIMEOUT = java.time.Duration.ofSeconds(5);

    private JdbcStores() {}

    /**
     * Opens the store described by {@code config}: creates the SQLite file's directory when needed,
     * applies the Flyway migrations of the dialect ({@code db/migration/postgresql} or
     * {@code db/migration/sqlite}; safe when several nodes start at once), and pools connections with
     * HikariCP. Close the returned store to release them.
     *
     * @param clock "now" for claims and leases unless {@link StoreConfig#databaseClock()} is set
     * @throws StoreException when the database cannot be reached or migrated
     */
    public static Store open(StoreConfig config, Clock clock) {
        return open(config, clock, false);
    }

    /**
     * As {@link #open}, for a store that must exist already: creates nothing when there is none (no SQLite file, no
     * directory, no schema in the database) but throws {@link StoreNotFoundException}. An existing store is migrated
     * to this version's schema as a node would.
     *
     * @throws StoreNotFoundException when the SQLite file does not exist or the database has no Idem schema
     */
    public static Store openExisting(StoreConfig config, Clock clock) {
        return open(config, clock, true);
    }

    private static Store open(StoreConfig config, Clock clock, boolean mustExist) {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(clock, "clock");
        Dialect dialect = Dialect.forName(config.dialect());
        Path file = dialect.databaseFile(config.jdbcUrl());
        if (mustExist && file != null && !Files.isRegularFile(file))
            throw new StoreNotFoundException("no Idem store at " + file + " (the file does not exist)");
        if (!mustExist && file != null) createDirectories(file.getParent());
        MasterKeys keys = masterKeys(config, dialect.name(), file);
        HikariDataSource pool;
        try {
            pool = new HikariDataSource(hikari(config, dialect));
        } catch (RuntimeException e) {
            throw new StoreException(
                    "cannot connect to " + StoreConfig.redact(config.jdbcUrl()) + ": " + rootMessage(e), e, true);
        }
        if (mustExist && !hasSchema(pool)) {
            pool.close();
            throw new StoreNotFoundException(
                    "no Idem store in " + StoreConfig.redact(config.jdbcUrl()) + " (the database has no Idem tables)");
        }
        try (Connection c = pool.getConnection()) {
            dialect.beforeMigrate(c);
        } catch (SQLException e) {
            pool.close();
            throw new StoreException(
                    "cannot prepare the store at " + StoreConfig.redact(config.jdbcUrl()) + ": " + e.getMessage(),
                    e,
                    false);
        }
        try {
            Flyway.configure(JdbcStores.class.getClassLoader())
                    .dataSource(pool)
                    .locations("classpath:db/migration/" + dialect.name())
                    .failOnMissingLocations(true)
                    // migrations are numbered by area (DEVELOPERS.md), so a new one may sort below a database's newest:
                    // apply it rather than refuse to open
                    .outOfOrder(true)
                    .load()
                    .migrate();
        } catch (RuntimeException e) {
            pool.close();
            throw new StoreException(
                    "cannot migrate the store at " + StoreConfig.redact(config.jdbcUrl()) + ": " + rootMessage(e),
                    e,
                    false);
        }
        JdbcStore store = JdbcStore.create(
                pool,
                dialect,
                config,
                clock,
                () -> new HikariDataSource(liveness(config, dialect)),
                () -> new HikariDataSource(probe(config, dialect)),
                new SecretCipher(keys));
        try {
            SecretsAtRest.check(store, keys);
            return store;
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
    }

    /**
     * The batch walker over the secret columns of a store this class opened: {@code keys master rewrap} and {@code
     * status}.
     */
    public static Resealing resealing(Store store) {
        if (store instanceof JdbcStore j) return j.resealing();
        throw new IllegalArgumentException("not a store opened by JdbcStores: " + store);
    }

    /**
     * The configured keys; else, for an SQLite file, the keyset beside it (made on first open), for an SQLite database
     * in memory, a key that lives as long as it; else none, which a PostgreSQL store refuses before connecting.
     */
    private static MasterKeys masterKeys(StoreConfig config, String dialect, Path sqliteFile) {
        if (config.masterKeys() != null) return config.masterKeys();
        boolean sqlite = dialect.equals("sqlite");
        if (sqlite && sqliteFile == null)
            return MasterKeys.generate(new java.security.SecureRandom(), java.time.Instant.now());
        if (!sqlite)
            throw new MasterKeyException(
                    "no master key: a PostgreSQL store needs one to seal its secrets (make one with "
                            + "`idem keys master generate`, then give --master-key-file / IDEM_MASTER_KEY_FILE or "
                            + "IDEM_MASTER_KEY)");
        return MasterKeyFile.loadOrCreate(
                        sqliteFile.resolveSibling(MasterKeyFile.DEFAULT_NAME),
                        new java.security.SecureRandom(),
                        java.time.Instant.now())
                .keys();
    }

    private static HikariConfig hikari(StoreConfig config, Dialect dialect) {
        HikariConfig h = new HikariConfig();
        h.setPoolName("idem-store-" + dialect.name());
        h.setJdbcUrl(config.jdbcUrl());
        if (config.user() != null) h.setUsername(config.user());
        if (config.password() != null) h.setPassword(config.password());
        h.setMaximumPoolSize(config.poolSize());
        h.setMinimumIdle(Math.min(2, config.poolSize()));
        // How long a caller waits for a connection: when the database refuses or drops connections, an API request
        // fails within this bound (a 503 the client retries) instead of hanging for Hikari's default 30 s; when it is
        // up, a wait this long means the pool is exhausted, which a retry after a pause also handles best.
        h.setConnectionTimeout(CONNECTION_TIMEOUT.toMillis());
        h.setValidationTimeout(Math.min(2_000, CONNECTION_TIMEOUT.toMillis() / 2));
        h.setInitializationFailTimeout(10_000);
        dialect.configure(h);
        return h;
    }

    /**
     * The node registry's own connection: renewals never queue behind the main pool, and a database that stops
     * answering fails a renewal within seconds (the node then stops starting attempts) instead of after the main pool's
     * connection timeout. It starts empty: opening the store does not wait for it.
     */
    private static HikariConfig liveness(StoreConfig config, Dialect dialect) {
        HikariConfig h = hikari(config, dialect);
        h.setPoolName("idem-liveness-" + dialect.name());
        h.setMaximumPoolSize(1);
        h.setMinimumIdle(1);
        h.setConnectionTimeout(3_000);
        h.setValidationTimeout(2_000);
        h.setInitializationFailTimeout(-1);
        dialect.configureLiveness(h);
        return h;
    }

    /**
     * The readiness probe's own connection ({@link Store#isReachable()}), with the node registry's settings (a read on
     * a silent network fails within seconds): a probe never queues behind the main pool or behind a takeover.
     */
    private static HikariConfig probe(StoreConfig config, Dialect dialect) {
        HikariConfig h = liveness(config, dialect);
        h.setPoolName("idem-probe-" + dialect.name());
        return h;
    }

    private static void createDirectories(Path parent) {
        try {
            if (parent != null) Files.createDirectories(parent);
        } catch (IOException e) {
            throw new StoreException("cannot create the data directory " + parent + ": " + e.getMessage(), e, false);
        }
    }

    /** Whether Flyway ever migrated this database (its history table is there). */
    private static boolean hasSchema(HikariDataSource pool) {
        try (Connection c = pool.getConnection();
                ResultSet tables =
                        c.getMetaData().getTables(null, null, "flyway_schema_history", new String[] {"TABLE"})) {
            return tables.next();
        } catch (SQLException e) {
            throw new StoreException("cannot read the tables of the store: " + e.getMessage(), e, true);
        }
    }

    private static String rootMessage(Throwable t) {
        Throwable r = t;
        while (r.getCause() != null && r.getCause() != r) r = r.getCause();
        return String.valueOf(r.getMessage());
    }
}

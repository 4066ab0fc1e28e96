package dev.idem.store.testing;

import dev.idem.core.store.DeliveryQueue;
import dev.idem.core.store.Store;
import dev.idem.core.store.StoreTx;
import dev.idem.store.MasterKeys;
import dev.idem.store.StoreConfig;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.UUID;
import java.util.function.Function;

/**
 * Real stores for tests of any module: SQLite in a directory and PostgreSQL in a fresh database.
 *
 * <p>PostgreSQL is reached at {@code 127.0.0.1:5432} as user {@code postgres} (trust auth) unless
 * {@code IDEM_TEST_PG_URL} (a JDBC URL of an admin database), {@code IDEM_TEST_PG_USER} and
 * {@code IDEM_TEST_PG_PASSWORD} say otherwise. When it cannot be reached these methods throw: a
 * store test is never skipped silently.
 */
public final class TestStores {
    private static final String PREFIX = "idem_store_";
    static final Duration ABANDONED_AFTER = Duration.ofHours(6);
    private static boolean sweptAbandoned;
    static final List<String> TABLES = List.of(
            "audit_log",
            "portal_sessions",
            "portal_access",
            "portal_settings",
            "nodes",
            "attempts",
            "delivery_traces",
            "deliveries",
            "messages",
            "flow_usage",
            "delivery_counts",
            "schedules",
            "idempotency_records",
            "signing_secrets",
            "sources",
            "applications",
            "endpoints",
            "event_types",
            "project_settings",
            "api_keys",
            "projects");

    private TestStores() {}

    /** An SQLite store in {@code dir} (a real file, {@code idem.db}), on {@code clock}. */
    public static Store sqlite(Path dir, Clock clock) {
        return sqliteDatabase(dir).open(clock);
    }

    /** A PostgreSQL store in a fresh database, on {@code clock}; closing the store drops the database. */
    public static Store postgres(Clock clock) {
        TestDatabase db = postgresDatabase();
        try {
            return new DroppingStore(db.open(clock), db);
        } catch (RuntimeException e) {
            db.close();
            throw e;
        }
    }

    /** The SQLite database file in {@code dir}. */
    public static TestDatabase sqliteDatabase(Path dir) {
        StoreConfig config = StoreConfig.sqlite(dir);
        return new TestDatabase() {
            @Override
            public StoreConfig config() {
                return config;
            }

            @Override
            public void wipe() {
                Properties p = new Properties();
                p.setProperty("busy_timeout", "30000");
                try (Connection c = DriverManager.getConnection(config.jdbcUrl(), p)) {
                    deleteAll(c);
                } catch (SQLException e) {
                    throw new IllegalStateException("cannot wipe " + config.jdbcUrl(), e);
                }
            }

            @Override
            public void close() {}
        };
    }

    /**
     * A fresh PostgreSQL database {@code idem_store_<epoch seconds>_<random>} with the schema already migrated, dropped
     * on close: a copy of {@link PostgresTemplate}'s database ({@code CREATE DATABASE … TEMPLATE}), which costs a
     * fraction of running every migration again. Opening a store on it runs Flyway as always (it finds nothing to do).
     */
    public static TestDatabase postgresDatabase() {
        return postgresDatabase(true);
    }

    /**
     * A fresh PostgreSQL database without any table, dropped on close: for the tests of what a store does with a
     * database it did not migrate itself (an empty one, one at an older version).
     */
    public static TestDatabase emptyPostgresDatabase() {
        return postgresDatabase(false);
    }

    private static TestDatabase postgresDatabase(boolean migrated) {
        dropAbandonedOnce();
        String name = PREFIX + Instant.now().getEpochSecond() + "_"
                + UUID.randomUUID().toString().replace("-", "").substring(0, 12).toLowerCase(Locale.ROOT);
        if (migrated) PostgresTemplate.cloneInto(name);
        else admin("CREATE DATABASE " + name);
        String url = urlOf(name);
        // A keyset of its own, as a node has: every store opened on this database seals with it.
        StoreConfig config = StoreConfig.of(url, user(), password())
                .withDatabaseClock(false)
                .withPoolSize(8)
                .withMasterKeys(MasterKeys.generate(new SecureRandom(), Instant.now()));
        return new TestDatabase() {
            private boolean dropped;

            @Override
            public StoreConfig config() {
                return config;
            }

            @Override
            public void wipe() {
                try (Connection c = DriverManager.getConnection(url, props())) {
                    deleteAll(c);
                } catch (SQLException e) {
                    throw new IllegalStateException("cannot wipe " + name, e);
                }
            }

            @Override
            public synchronized void close() {
                if (dropped) return;
                dropped = true;
                admin("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
            }
        };
    }

    /**
     * Drops test databases left by JVMs that died before closing them: those created more than
     * {@link #ABANDONED_AFTER} ago (no test runs that long), once per JVM.
     */
    private static synchronized void dropAbandonedOnce() {
        if (sweptAbandoned) return;
        sweptAbandoned = true;
        long cutoff = Instant.now().minus(ABANDONED_AFTER).getEpochSecond();
        List<String> old = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(adminUrl(), props());
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT datname FROM pg_database WHERE datname LIKE 'idem\\_store\\_%'")) {
            while (rs.next()) {
                String[] parts = rs.getString(1).substring(PREFIX.length()).split("_");
                if (parts.length == 2 && parts[0].matches("\\d{9,11}") && Long.parseLong(parts[0]) < cutoff)
                    old.add(rs.getString(1));
            }
        } catch (SQLException e) {
            return; // admin() reports an unreachable server with the full explanation
        }
        for (String name : old) admin("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    }

    private static void deleteAll(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            for (String t : TABLES) s.executeUpdate("DELETE FROM " + t);
        }
    }

    /** The JDBC URL of database {@code name} on the test server. */
    static String urlOf(String name) {
        return adminUrl().replaceFirst("/[^/?]*(\\?|$)", "/" + name + "$1");
    }

    static String adminUrl() {
        String url = System.getenv("IDEM_TEST_PG_URL");
        return url == null || url.isBlank() ? "jdbc:postgresql://127.0.0.1:5432/postgres" : url;
    }

    static String user() {
        String u = System.getenv("IDEM_TEST_PG_USER");
        return u == null || u.isBlank() ? "postgres" : u;
    }

    static String password() {
        String p = System.getenv("IDEM_TEST_PG_PASSWORD");
        return p == null || p.isBlank() ? null : p;
    }

    static Properties props() {
        Properties p = new Properties();
        p.setProperty("user", user());
        if (password() != null) p.setProperty("password", password());
        p.setProperty("connectTimeout", "5");
        return p;
    }

    static void admin(String statement) {
        try (Connection c = DriverManager.getConnection(adminUrl(), props());
                Statement s = c.createStatement()) {
            s.execute(statement);
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "PostgreSQL for the store tests is not usable at " + adminUrl() + " as " + user()
                            + " (" + e.getMessage()
                            + "). Start it (see DEVELOPERS.md) or point IDEM_TEST_PG_URL at one; "
                            + "store tests are never skipped.",
                    e);
        }
    }

    /** The store a test store wraps (one that drops its database when closed), or {@code store} itself. */
    public static Store unwrap(Store store) {
        return store instanceof DroppingStore d ? d.inner() : store;
    }

    /** A store that drops its database when closed. */
    private record DroppingStore(Store inner, TestDatabase db) implements Store {
        @Override
        public <T> T inTransaction(Function<StoreTx, T> work) {
            return inner.inTransaction(work);
        }

        @Override
        public <T> T inReadTransaction(Function<StoreTx, T> work) {
            return inner.inReadTransaction(work);
        }

        @Override
        public <T> T inGroupCommit(Function<StoreTx, T> work) {
            return inner.inGroupCommit(work);
        }

        @Override
        public dev.idem.core.store.WriteGroups writeGroups() {
            return inner.writeGroups();
        }

        @Override
        public DeliveryQueue queue() {
            return inner.queue();
        }

        @Override
        public dev.idem.core.store.NodeRegistry nodes() {
            return inner.nodes();
        }

        @Override
        public Subscription onDeliveriesDue(Runnable listener) {
            return inner.onDeliveriesDue(listener);
        }

        @Override
        public String dialect() {
            return inner.dialect();
        }

        @Override
        public boolean claimsConcurrently() {
            return inner.claimsConcurrently();
        }

        @Override
        public boolean isReachable() {
            return inner.isReachable();
        }

        @Override
        public void close() {
            try {
                inner.close();
            } finally {
                db.close();
            }
        }
    }
}

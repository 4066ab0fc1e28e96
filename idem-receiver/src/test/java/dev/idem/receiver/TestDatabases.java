package dev.idem.receiver;

import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.logging.Logger;
import javax.sql.DataSource;
import redis.clients.jedis.JedisPooled;

/**
 * The real services the tests run against, each in a database of this module's own. A service that cannot be
 * reached fails the test (never a silent skip, in CI or locally).
 */
public final class TestDatabases {
    public static final String PG_URL = "jdbc:postgresql://127.0.0.1:5432/idem_receiver_test?user=postgres";
    public static final String MARIADB_URL = "jdbc:mariadb://127.0.0.1:3306/idem_receiver_test?user=root&password=";
    public static final String REDIS_URL = "redis://127.0.0.1:6379";
    public static final String REDIS_PREFIX = "idem-receiver-test:";
    private static volatile boolean pgReady;
    private static volatile boolean mariaReady;

    private TestDatabases() {}

    public static synchronized String postgresUrl() {
        if (!pgReady) {
            createIfAbsent(
                    "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres",
                    "SELECT 1 FROM pg_database WHERE datname = 'idem_receiver_test'",
                    "CREATE DATABASE idem_receiver_test");
            pgReady = true;
        }
        return PG_URL;
    }

    public static synchronized String mariadbUrl() {
        if (!mariaReady) {
            createIfAbsent(
                    "jdbc:mariadb://127.0.0.1:3306/test?user=root&password=",
                    null,
                    "CREATE DATABASE IF NOT EXISTS idem_receiver_test");
            mariaReady = true;
        }
        return MARIADB_URL;
    }

    public static JedisPooled redis() {
        JedisPooled redis = new JedisPooled(REDIS_URL);
        try {
            redis.ping();
        } catch (RuntimeException e) {
            throw new IllegalStateException(
                    "Redis at " + REDIS_URL + " is not reachable; the receiver tests need it", e);
        }
        return redis;
    }

    /** Deletes every key under the test prefix plus {@code sub}. */
    public static void clearRedis(JedisPooled redis, String sub) {
        for (String k : redis.keys(REDIS_PREFIX + sub + "*")) redis.del(k);
    }

    private static void createIfAbsent(String adminUrl, String existsQuery, String create) {
        try (Connection c = DriverManager.getConnection(adminUrl);
                Statement s = c.createStatement()) {
            if (existsQuery != null && s.executeQuery(existsQuery).next()) return;
            try {
                s.execute(create);
            } catch (SQLException e) {
                if (existsQuery == null || !s.executeQuery(existsQuery).next()) throw e;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "cannot reach " + adminUrl.replaceAll("\\?.*", "") + " to create the test"
                            + " database; the receiver tests need it running: " + e.getMessage(),
                    e);
        }
    }

    public static void exec(DataSource ds, String... sql) {
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            if (!c.getAutoCommit()) c.setAutoCommit(true);
            for (String q : sql) s.execute(q);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    public static long count(DataSource ds, String sql) {
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            var rs = s.executeQuery(sql);
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A small fixed pool: connections are opened lazily and reused; close() returns them. */
    public static final class Pool implements DataSource, AutoCloseable {
        private static final Object EMPTY = new Object();
        private final String url;
        private final BlockingQueue<Object> idle;
        private final BlockingQueue<Connection> all;

        public Pool(String url, int size) {
            this.url = url;
            this.idle = new ArrayBlockingQueue<>(size);
            this.all = new ArrayBlockingQueue<>(size);
            for (int i = 0; i < size; i++) idle.add(EMPTY);
        }

        @Override
        public Connection getConnection() throws SQLException {
            Object slot;
            try {
                slot = idle.take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SQLException("interrupted");
            }
            Connection c;
            if (slot == EMPTY) {
                try {
                    c = DriverManager.getConnection(url);
                } catch (SQLException e) {
                    idle.add(EMPTY);
                    throw e;
                }
                all.add(c);
            } else {
                c = (Connection) slot;
            }
            Connection real = c;
            boolean[] closed = {false};
            return (Connection) Proxy.newProxyInstance(
                    Pool.class.getClassLoader(), new Class<?>[] {Connection.class}, (p, m, a) -> {
                        if (m.getName().equals("close")) {
                            if (!closed[0]) {
                                closed[0] = true;
                                if (!real.getAutoCommit()) {
                                    real.rollback();
                                    real.setAutoCommit(true);
                                }
                                idle.add(real);
                            }
                            return null;
                        }
                        if (m.getName().equals("isClosed")) return closed[0] || real.isClosed();
                        try {
                            return m.invoke(real, a);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        }

        @Override
        public void close() {
            for (Connection c : all) {
                try {
                    c.close();
                } catch (SQLException ignored) {
                    // closing anyway
                }
            }
        }

        @Override
        public Connection getConnection(String u, String p) throws SQLException {
            return getConnection();
        }

        @Override
        public PrintWriter getLogWriter() {
            return null;
        }

        @Override
        public void setLogWriter(PrintWriter out) {}

        @Override
        public void setLoginTimeout(int seconds) {}

        @Override
        public int getLoginTimeout() {
            return 0;
        }

        @Override
        public Logger getParentLogger() {
            return Logger.getGlobal();
        }

        @Override
        public <T> T unwrap(Class<T> iface) throws SQLException {
            throw new SQLException("not a wrapper");
        }

        @Override
        public boolean isWrapperFor(Class<?> iface) {
            return false;
        }
    }
}

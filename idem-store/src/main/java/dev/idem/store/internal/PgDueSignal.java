package dev.idem.store.internal;

import dev.idem.store.StoreConfig;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Signals through PostgreSQL {@code LISTEN/NOTIFY}, so every node hears every node. One dedicated
 * connection (outside the pool, so it is never recycled under the listener) waits for notifications;
 * when it is lost it reconnects and calls the listeners once, since signals may have been missed.
 */
final class PgDueSignal extends DueSignal {
    static final String CHANNEL = "idem_deliveries_due";
    private static final String NOTIFY = "SELECT pg_notify('" + CHANNEL + "', '')";
    private static final Logger log = LoggerFactory.getLogger(PgDueSignal.class);
    private final StoreConfig config;
    private final DataSource pool;
    private Thread thread;
    private volatile boolean closed;

    PgDueSignal(StoreConfig config, DataSource pool) {
        this.config = config;
        this.pool = pool;
    }

    @Override
    protected synchronized void started() {
        if (thread != null || closed) return;
        thread = new Thread(this::run, "idem-store-listen");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        boolean reconnect = false;
        while (!closed) {
            try (Connection c = connect()) {
                try (Statement s = c.createStatement()) {
                    s.execute("LISTEN " + CHANNEL);
                }
                if (reconnect) fire();
                PGConnection pg = c.unwrap(PGConnection.class);
                while (!closed) {
                    PGNotification[] got = pg.getNotifications(500);
                    if (got != null && got.length > 0) fire();
                }
            } catch (SQLException e) {
                if (closed) return;
                log.warn("LISTEN connection lost; reconnecting in 1s: {}", e.getMessage());
                reconnect = true;
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException ie) {
                    return;
                }
            }
        }
    }

    private Connection connect() throws SQLException {
        Properties p = new Properties();
        if (config.user() != null) p.setProperty("user", config.user());
        if (config.password() != null) p.setProperty("password", config.password());
        p.setProperty("ApplicationName", "idem-listen");
        p.setProperty("tcpKeepAlive", "true");
        return DriverManager.getConnection(config.jdbcUrl(), p);
    }

    @Override
    void inTransaction(Connection c) {
        // Delivered by PostgreSQL at commit, dropped at rollback; repeats in one transaction fold into one.
        try (Statement s = c.createStatement()) {
            s.execute(NOTIFY);
        } catch (SQLException e) {
            throw Sql.failure(NOTIFY, e);
        }
    }

    @Override
    void afterCommit() {}

    @Override
    void now() {
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            s.execute(NOTIFY);
        } catch (SQLException e) {
            throw Sql.failure(NOTIFY, e);
        }
    }

    @Override
    public void close() {
        closed = true;
        Thread t;
        synchronized (this) {
            t = thread;
        }
        if (t != null) {
            t.interrupt();
            try {
                t.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}

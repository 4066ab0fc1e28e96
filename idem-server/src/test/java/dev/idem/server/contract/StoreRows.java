package dev.idem.server.contract;

import dev.idem.store.StoreConfig;
import dev.idem.store.testing.TestStores;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

/** Counts rows straight in a store's database: "nothing was created" checked below the API. */
public final class StoreRows {
    private final StoreConfig config;

    StoreRows(StoreConfig config) {
        this.config = config;
    }

    /** The SQLite store in {@code dir}. */
    public StoreRows(Path dir) {
        this(TestStores.sqliteDatabase(dir).config());
    }

    /** Rows of schedules, deliveries, and request-idempotency records, across every tenant. */
    record Counts(long schedules, long deliveries, long idempotencyRecords) {}

    /** Rows of {@code table}, across every tenant. */
    long count(String table) {
        try (Connection c = connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot count rows of " + table + " in " + config, e);
        }
    }

    /** Makes delivery {@code deliveryId} dead as of {@code at}, as if its last attempt had failed for good then. */
    public void markDead(String deliveryId, java.time.Instant at) {
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE deliveries SET status = 'dead', next_attempt_at = NULL, updated_at = "
                    + at.toEpochMilli() + " WHERE id = '" + deliveryId + "'");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot mark " + deliveryId + " dead in " + config, e);
        }
    }

    private Connection connect() throws SQLException {
        Properties p = new Properties();
        if (config.user() != null) p.setProperty("user", config.user());
        if (config.password() != null) p.setProperty("password", config.password());
        return DriverManager.getConnection(config.jdbcUrl(), p);
    }

    Counts counts() {
        try (Connection c = connect();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT (SELECT count(*) FROM schedules), (SELECT count(*) FROM deliveries),"
                                + " (SELECT count(*) FROM idempotency_records)")) {
            rs.next();
            return new Counts(rs.getLong(1), rs.getLong(2), rs.getLong(3));
        } catch (SQLException e) {
            throw new IllegalStateException("cannot count rows in " + config, e);
        }
    }
}

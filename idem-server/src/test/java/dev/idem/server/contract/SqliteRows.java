package dev.idem.server.contract;

import dev.idem.store.testing.TestStores;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** Counts rows straight in an SQLite store's file: "nothing was created" checked below the API. */
final class SqliteRows {
    private final String url;

    SqliteRows(Path dir) {
        this.url = TestStores.sqliteDatabase(dir).config().jdbcUrl();
    }

    /** Rows of schedules, deliveries, and request-idempotency records, across every tenant. */
    record Counts(long schedules, long deliveries, long idempotencyRecords) {}

    Counts counts() {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT (SELECT count(*) FROM schedules), (SELECT count(*) FROM deliveries),"
                     + " (SELECT count(*) FROM idempotency_records)")) {
            rs.next();
            return new Counts(rs.getLong(1), rs.getLong(2), rs.getLong(3));
        } catch (SQLException e) {
            throw new IllegalStateException("cannot count rows in " + url, e);
        }
    }
}

package dev.idem.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The databases' own insert rates on this machine now, measured in the same run as the write path so that its figures
 * read as ratios: single-row inserts (one per transaction) and {@code --rows}-row inserts (one statement per
 * transaction), on PostgreSQL from 16 connections, on SQLite from its one writer with Idem's settings (WAL,
 * {@code synchronous=FULL}).
 */
final class WriteCeilings {
    private static final String BODY = "{\"id\":\"evt\",\"type\":\"orders/paid\",\"data\":{\"amount\":4200}}";

    private WriteCeilings() {}

    /** PostgreSQL's own rate on this machine now: single-row and multi-row inserts, one per transaction. */
    static List<String> postgres(Map<String, String> opt, Postgres postgres, BenchOptions base) throws Exception {
        String db = opt.get("db");
        int n = Integer.parseInt(opt.get("events")) * 2;
        int rows = Integer.parseInt(opt.get("rows"));
        postgres.recreate(db);
        HikariConfig hc = new HikariConfig();
        hc.setJdbcUrl(postgres.url(db));
        hc.setUsername(base.user());
        if (base.password() != null) hc.setPassword(base.password());
        hc.setMaximumPoolSize(16);
        List<String> out = new ArrayList<>();
        try (HikariDataSource ds = new HikariDataSource(hc)) {
            try (Connection c = ds.getConnection()) {
                c.createStatement()
                        .execute("CREATE TABLE bare_events (id TEXT PRIMARY KEY, body TEXT NOT NULL,"
                                + " created_at BIGINT NOT NULL)");
            }
            String body = BODY;
            out.add(WritePathRun.measured("pg ceiling 1 row/tx 16", n, 16, i -> {
                try (Connection c = ds.getConnection();
                        PreparedStatement ps = c.prepareStatement("INSERT INTO bare_events VALUES (?, ?, ?)")) {
                    ps.setString(1, "a" + i);
                    ps.setString(2, body);
                    ps.setLong(3, System.currentTimeMillis());
                    ps.executeUpdate();
                }
            }));
            StringBuilder sql = new StringBuilder("INSERT INTO bare_events VALUES ");
            for (int r = 0; r < rows; r++) sql.append(r == 0 ? "" : ",").append("(?, ?, ?)");
            int txs = n / rows;
            String line = WritePathRun.measured("pg ceiling " + rows + " rows/tx 16", txs, 16, i -> {
                try (Connection c = ds.getConnection();
                        PreparedStatement ps = c.prepareStatement(sql.toString())) {
                    for (int r = 0; r < rows; r++) {
                        ps.setString(3 * r + 1, "m" + i + "_" + r);
                        ps.setString(3 * r + 2, body);
                        ps.setLong(3 * r + 3, System.currentTimeMillis());
                    }
                    ps.executeUpdate();
                }
            });
            out.add(line + " (figures per transaction of " + rows + " rows)");
        } finally {
            postgres.drop(db);
        }
        return out;
    }

    /** SQLite's: one connection (its one writer), each insert or multi-row insert committed on its own. */
    static List<String> sqlite(Map<String, String> opt) throws Exception {
        int n = Integer.parseInt(opt.get("events")) * 2;
        int rows = Integer.parseInt(opt.get("rows"));
        Path dir = Files.createTempDirectory("idem-sqlite-ceiling");
        List<String> out = new ArrayList<>();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("bare.db"))) {
            try (var st = c.createStatement()) {
                st.execute("PRAGMA journal_mode=WAL");
                st.execute("PRAGMA synchronous=FULL");
                st.execute(
                        "CREATE TABLE bare_events (id TEXT PRIMARY KEY, body TEXT NOT NULL, created_at BIGINT NOT NULL)");
            }
            c.setAutoCommit(false);
            Object lock = new Object();
            out.add(WritePathRun.measured("sqlite ceiling 1 row/tx 1", n, 1, i -> {
                synchronized (lock) {
                    try (PreparedStatement ps = c.prepareStatement("INSERT INTO bare_events VALUES (?, ?, ?)")) {
                        ps.setString(1, "a" + i);
                        ps.setString(2, BODY);
                        ps.setLong(3, System.currentTimeMillis());
                        ps.executeUpdate();
                    }
                    c.commit();
                }
            }));
            StringBuilder sql = new StringBuilder("INSERT INTO bare_events VALUES ");
            for (int r = 0; r < rows; r++) sql.append(r == 0 ? "" : ",").append("(?, ?, ?)");
            String line = WritePathRun.measured("sqlite ceiling " + rows + " rows/tx 1", n / rows, 1, i -> {
                synchronized (lock) {
                    try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
                        for (int r = 0; r < rows; r++) {
                            ps.setString(3 * r + 1, "m" + i + "_" + r);
                            ps.setString(3 * r + 2, BODY);
                            ps.setLong(3 * r + 3, System.currentTimeMillis());
                        }
                        ps.executeUpdate();
                    }
                    c.commit();
                }
            });
            out.add(line + " (figures per transaction of " + rows + " rows)");
        } finally {
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) Files.deleteIfExists(f);
            }
            Files.deleteIfExists(dir);
        }
        return out;
    }
}

package dev.idem.client.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.Locale;
import java.util.UUID;

/**
 * An application's own database for outbox tests, made for one test class: a fresh PostgreSQL or MariaDB database
 * ({@code idem_client_<time>_<random>}, dropped on close) or an SQLite file. An unreachable server fails the test.
 */
public final class AppDatabase implements AutoCloseable {
    private static final String PG_ADMIN = "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres";
    private static final String MARIADB_ADMIN = "jdbc:mariadb://127.0.0.1:3306/?user=root&password=";
    private final String url;
    private final String dropStatement;
    private final String adminUrl;
    private final HikariDataSource dataSource;

    private AppDatabase(String url, String adminUrl, String dropStatement, int poolSize) {
        this.url = url;
        this.adminUrl = adminUrl;
        this.dropStatement = dropStatement;
        HikariConfig cfg = new HikariConfig();
        cfg.setJdbcUrl(url);
        cfg.setMaximumPoolSize(poolSize);
        cfg.setPoolName("app-" + UUID.randomUUID().toString().substring(0, 6));
        this.dataSource = new HikariDataSource(cfg);
    }

    public static AppDatabase postgres() {
        String name = newName();
        admin(PG_ADMIN, "CREATE DATABASE " + name);
        return new AppDatabase(
                "jdbc:postgresql://127.0.0.1:5432/" + name + "?user=postgres",
                PG_ADMIN,
                "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)",
                8);
    }

    public static AppDatabase mariadb() {
        String name = newName();
        admin(MARIADB_ADMIN, "CREATE DATABASE " + name);
        return new AppDatabase(
                "jdbc:mariadb://127.0.0.1:3306/" + name + "?user=root&password=",
                MARIADB_ADMIN,
                "DROP DATABASE IF EXISTS " + name,
                8);
    }

    public static AppDatabase sqlite(Path dir) {
        return new AppDatabase(
                "jdbc:sqlite:" + dir.resolve("app.db") + "?journal_mode=WAL&busy_timeout=30000", null, null, 4);
    }

    private static String newName() {
        return "idem_client_" + Instant.now().getEpochSecond() + "_"
                + UUID.randomUUID().toString().replace("-", "").substring(0, 10).toLowerCase(Locale.ROOT);
    }

    private static void admin(String adminUrl, String sql) {
        try (Connection c = DriverManager.getConnection(adminUrl);
                Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "the outbox tests need " + adminUrl.replaceAll("\\?.*", "") + " (see DEVELOPERS.md): "
                            + e.getMessage(),
                    e);
        }
    }

    /** The JDBC URL (credentials included), for a child process. */
    public String url() {
        return url;
    }

    public HikariDataSource dataSource() {
        return dataSource;
    }

    public void exec(String sql) {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    public long count(String sql) {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        dataSource.close();
        if (dropStatement != null) admin(adminUrl, dropStatement);
    }
}

package dev.idem.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

/** The benchmark's own housekeeping on the PostgreSQL server: fresh databases per run, vacuum between phases. */
final class Postgres {
    private final BenchOptions options;

    Postgres(BenchOptions options) {
        this.options = options;
    }

    String url(String database) {
        return options.jdbcBase() + database;
    }

    /** Drops {@code database} (closing other sessions on it) and creates it empty. */
    void recreate(String database) throws SQLException {
        if (!database.matches("[a-z_][a-z0-9_]*"))
            throw new IllegalArgumentException("unsafe database name " + database);
        try (Connection c = connect("postgres");
                Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
            s.execute("CREATE DATABASE " + database);
        }
        CpuUse.countBackendsOf(database);
    }

    void drop(String database) throws SQLException {
        try (Connection c = connect("postgres");
                Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
        }
    }

    /** Runs statements in {@code database} with autocommit (DDL, VACUUM). */
    void execute(String database, String... statements) throws SQLException {
        try (Connection c = connect(database);
                Statement s = c.createStatement()) {
            for (String sql : statements) s.execute(sql);
        }
    }

    /** Runs one data-changing statement in {@code database}; returns how many rows it changed. */
    long update(String database, String statement) throws SQLException {
        try (Connection c = connect(database);
                Statement s = c.createStatement()) {
            return s.executeUpdate(statement);
        }
    }

    /** Connections the server would still accept from this user: max_connections less the reserved and those open. */
    int connectionsFree() throws SQLException {
        try (Connection c = connect("postgres");
                Statement s = c.createStatement();
                java.sql.ResultSet rs = s.executeQuery(
                        "SELECT current_setting('max_connections')::int - current_setting('superuser_reserved_connections')::int"
                                + " - (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /** A connection of its own to {@code database}, autocommit. */
    Connection connect(String database) throws SQLException {
        Properties p = new Properties();
        if (options.user() != null) p.setProperty("user", options.user());
        if (options.password() != null) p.setProperty("password", options.password());
        return DriverManager.getConnection(url(database), p);
    }
}

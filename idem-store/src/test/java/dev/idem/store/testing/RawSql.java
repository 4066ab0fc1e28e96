package dev.idem.store.testing;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** SQL a test runs on a connection of its own, past the store: to shape rows, or to read what the store wrote. */
public final class RawSql {
    private RawSql() {}

    /** Runs {@code sql}, a statement without parameters. */
    public static void exec(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    /** The first column of the one row {@code sql} answers, as a number (a count, say); fails if no row comes. */
    public static long count(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            if (!rs.next()) throw new AssertionError("no row from " + sql);
            return rs.getLong(1);
        }
    }
}

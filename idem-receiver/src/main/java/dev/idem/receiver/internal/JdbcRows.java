package dev.idem.receiver.internal;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;

/** Small JDBC helpers for the inbox. Not public API. */
public final class JdbcRows {
    private JdbcRows() {}

    /** A row's claim state; {@code claimedUntil} is 0 when not claimed. */
    public record Row(String status, String claimToken, long claimedUntil, String result) {}

    /** The row a claim query returns when it inserted the key. */
    public static final Row INSERTED = new Row("inserted", null, 0, null);

    public static Row read(Connection c, String sql, String key) throws SQLException {
        return query(c, sql, key);
    }

    /** The first row of a query with the given parameters (bound as by {@link #update}), or null. */
    public static Row query(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            bind(ps, params);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) return null;
                String status = rs.getString(1);
                if ("inserted".equals(status)) return INSERTED;
                return new Row(status, rs.getString(2), rs.getLong(3), rs.getString(4));
            }
        }
    }

    /** Binds as a NULL BIGINT (PostgreSQL refuses an untyped NULL in a BIGINT column). */
    public static final Object NULL_BIGINT = new Object();

    public static int update(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            bind(ps, params);
            return ps.executeUpdate();
        }
    }

    private static void bind(PreparedStatement ps, Object... params) throws SQLException {
        {
            for (int i = 0; i < params.length; i++) {
                Object p = params[i];
                if (p == NULL_BIGINT) ps.setNull(i + 1, Types.BIGINT);
                else if (p == null) ps.setNull(i + 1, Types.VARCHAR);
                else if (p instanceof Long l) ps.setLong(i + 1, l);
                else if (p instanceof Integer n) ps.setInt(i + 1, n);
                else ps.setString(i + 1, p.toString());
            }
        }
    }

    public static boolean tableExists(Connection c, String table) throws SQLException {
        DatabaseMetaData md = c.getMetaData();
        String name = table.contains(".") ? table.substring(table.indexOf('.') + 1) : table;
        for (String candidate :
                new String[] {name, name.toLowerCase(java.util.Locale.ROOT), name.toUpperCase(java.util.Locale.ROOT)}) {
            try (ResultSet rs = md.getTables(null, null, candidate, null)) {
                if (rs.next()) return true;
            }
        }
        return false;
    }
}

package dev.idem.store.internal;

import dev.idem.core.store.StoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/** Thin statement helpers over one connection; SQL failures surface as {@link StoreException}. */
final class Sql {
    private final Connection connection;
    /** A group commit's held inserts, written before any other statement runs; null outside a group. */
    private GroupedInserts grouped;

    Sql(Connection connection) {
        this.connection = connection;
    }

    /** From now on, inserts that can wait are held in {@code inserts} (a group commit's transaction). */
    void holdInserts(GroupedInserts inserts) {
        this.grouped = inserts;
    }

    /** The held inserts of this group commit's transaction, or null when inserts are written at once. */
    GroupedInserts heldInserts() {
        return grouped;
    }

    /** Writes the held inserts now (a statement that might read them is about to run). */
    void flushHeld() {
        if (grouped != null && grouped.rows() > 0) grouped.flush(this);
    }

    Connection connection() {
        return connection;
    }

    @FunctionalInterface
    interface RowMapper<T> {
        T map(ResultSet rs) throws SQLException;
    }

    int update(String sql, Object... args) {
        return change(sql, false, args);
    }

    <T> List<T> query(String sql, RowMapper<T> mapper, Object... args) {
        return select(sql, false, mapper, args);
    }

    /**
     * {@link #query}, run once per group commit's transaction for these arguments: the group's later works get the
     * first one's rows (which must be immutable), until a statement other than a held insert runs on the transaction.
     * For the lookups every grouped send repeats (an event type, an application, the endpoints it fans out to): a
     * group of 100 sends to one application reads its endpoints once. The group's works then see the rows as of that
     * first read, as if they had run right after it; outside a group this is {@link #query}.
     */
    <T> List<T> queryPerGroup(String sql, RowMapper<T> mapper, Object... args) {
        if (grouped == null) return query(sql, mapper, args);
        String key = sql + '\u0000' + java.util.Arrays.deepToString(args);
        List<T> rows = grouped.recalled(key);
        if (rows != null) return rows;
        rows = java.util.Collections.unmodifiableList(query(sql, mapper, args));
        grouped.remember(key, rows);
        return rows;
    }

    /** {@link #one} through {@link #queryPerGroup}. */
    <T> Optional<T> onePerGroup(String sql, RowMapper<T> mapper, Object... args) {
        List<T> rows = queryPerGroup(sql, mapper, args);
        return rows.isEmpty() ? Optional.empty() : Optional.ofNullable(rows.get(0));
    }

    /**
     * {@link #query}, planned by PostgreSQL at this run with these arguments and the settings in force now: never a
     * plan cached from an earlier run (its plan cache ignores planner settings such as {@code enable_nestloop}).
     */
    <T> List<T> queryPlannedNow(String sql, RowMapper<T> mapper, Object... args) {
        return select(sql, true, mapper, args);
    }

    /** {@link #update}, planned now as {@link #queryPlannedNow} is. */
    int updatePlannedNow(String sql, Object... args) {
        return change(sql, true, args);
    }

    private <T> List<T> select(String sql, boolean planNow, RowMapper<T> mapper, Object... args) {
        flushHeld();
        // UPDATE … RETURNING and WITH … may write
        if (grouped != null && !sql.regionMatches(true, 0, "SELECT ", 0, 7)) grouped.forgetReads();
        try (PreparedStatement ps = prepare(sql, planNow)) {
            bind(ps, args);
            try (ResultSet rs = ps.executeQuery()) {
                List<T> out = new ArrayList<>();
                while (rs.next()) out.add(mapper.map(rs));
                return out;
            }
        } catch (SQLException e) {
            throw failure(sql, e);
        }
    }

    private int change(String sql, boolean planNow, Object... args) {
        flushHeld();
        if (grouped != null) grouped.forgetReads();
        try (PreparedStatement ps = prepare(sql, planNow)) {
            bind(ps, args);
            return ps.executeUpdate();
        } catch (SQLException e) {
            throw failure(sql, e);
        }
    }

    /** {@code planNow}: never server-prepared by the PostgreSQL driver, so planned at each run (PostgreSQL only). */
    private PreparedStatement prepare(String sql, boolean planNow) throws SQLException {
        PreparedStatement ps = connection.prepareStatement(sql);
        try {
            if (planNow) ps.unwrap(org.postgresql.PGStatement.class).setPrepareThreshold(0);
            return ps;
        } catch (SQLException e) {
            ps.close();
            throw e;
        }
    }

    <T> Optional<T> one(String sql, RowMapper<T> mapper, Object... args) {
        List<T> rows = query(sql, mapper, args);
        return rows.isEmpty() ? Optional.empty() : Optional.ofNullable(rows.get(0));
    }

    /** Runs {@code sql} once per argument row in one JDBC batch; returns each row's update count. */
    int[] batch(String sql, Collection<Object[]> rows) {
        if (rows.isEmpty()) return new int[0];
        flushHeld();
        if (grouped != null) grouped.forgetReads();
        try (PreparedStatement ps = connection.prepareStatement(sql)) {
            for (Object[] args : rows) {
                bind(ps, args);
                ps.addBatch();
            }
            return ps.executeBatch();
        } catch (SQLException e) {
            throw failure(sql, e);
        }
    }

    /** Bound parameters per statement: under PostgreSQL's 32,767 and SQLite's 32,766, with room for trailing ones. */
    static final int MAX_PARAMETERS = 30_000;

    /**
     * Runs {@code head + rowSql, rowSql, … + tail} once per chunk of {@code rows} (as many rows as the parameter limit
     * allows), binding each row's values and then {@code tailArgs}: multi-row {@code INSERT … VALUES} and
     * {@code WITH v(…) AS (VALUES …) UPDATE … RETURNING}, so a page of rows costs a statement, not one per row. Every
     * row has as many values as {@code rowSql} has markers.
     *
     * @return the rows the statements returned, in order
     */
    <T> List<T> multiRowQuery(
            String head, String rowSql, List<Object[]> rows, String tail, RowMapper<T> mapper, Object... tailArgs) {
        List<T> out = new ArrayList<>();
        chunked(head, rowSql, rows, tail, tailArgs, (sql, args) -> out.addAll(query(sql, mapper, args)));
        return out;
    }

    /** {@link #multiRowQuery} for statements that return nothing; returns the summed update count. */
    int multiRowUpdate(String head, String rowSql, List<Object[]> rows, String tail) {
        int[] updated = {0};
        chunked(head, rowSql, rows, tail, new Object[0], (sql, args) -> updated[0] += update(sql, args));
        return updated[0];
    }

    private static void chunked(
            String head,
            String rowSql,
            List<Object[]> rows,
            String tail,
            Object[] tailArgs,
            java.util.function.BiConsumer<String, Object[]> run) {
        if (rows.isEmpty()) return;
        int width = rows.get(0).length;
        int perChunk = Math.max(1, (MAX_PARAMETERS - tailArgs.length) / Math.max(1, width));
        for (int from = 0; from < rows.size(); from += perChunk) {
            List<Object[]> chunk = rows.subList(from, Math.min(rows.size(), from + perChunk));
            Object[] args = new Object[chunk.size() * width + tailArgs.length];
            int i = 0;
            for (Object[] row : chunk) {
                System.arraycopy(row, 0, args, i, width);
                i += width;
            }
            System.arraycopy(tailArgs, 0, args, i, tailArgs.length);
            run.accept(head + String.join(", ", java.util.Collections.nCopies(chunk.size(), rowSql)) + tail, args);
        }
    }

    static void bind(PreparedStatement ps, Object... args) throws SQLException {
        for (int i = 0; i < args.length; i++) {
            Object a = args[i];
            int p = i + 1;
            if (a == null) ps.setNull(p, Types.NULL);
            else if (a instanceof String s) ps.setString(p, s);
            else if (a instanceof Long l) ps.setLong(p, l);
            else if (a instanceof Integer n) ps.setInt(p, n);
            else if (a instanceof Boolean b) ps.setBoolean(p, b);
            else if (a instanceof Instant t) ps.setLong(p, t.toEpochMilli());
            else if (a instanceof byte[] b) ps.setBytes(p, b);
            else if (a instanceof java.sql.Array arr) ps.setArray(p, arr);
            else throw new IllegalArgumentException("cannot bind " + a.getClass());
        }
    }

    /** A PostgreSQL array of {@code sqlType} ({@code text}, {@code int4}, {@code int8}, {@code bool}); elements may be null. */
    java.sql.Array array(String sqlType, Object[] elements) {
        try {
            return connection.createArrayOf(sqlType, elements);
        } catch (SQLException e) {
            throw failure("createArrayOf " + sqlType, e);
        }
    }

    /** "?, ?, ?" for an IN list of {@code n} values. */
    static String marks(int n) {
        return String.join(", ", java.util.Collections.nCopies(n, "?"));
    }

    static Long millis(Instant t) {
        return t == null ? null : t.toEpochMilli();
    }

    static Instant instant(ResultSet rs, String column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : Instant.ofEpochMilli(v);
    }

    static Integer integer(ResultSet rs, String column) throws SQLException {
        int v = rs.getInt(column);
        return rs.wasNull() ? null : v;
    }

    static StoreException failure(String sql, SQLException e) {
        return new StoreException(
                "store statement failed: " + e.getMessage() + " [" + abbreviate(sql) + "]", e, isTransient(e));
    }

    /** Deadlocks, serialization failures, lost connections and SQLite lock contention may pass on a retry. */
    static boolean isTransient(SQLException e) {
        for (SQLException x = e; x != null; x = x.getNextException()) {
            if (x instanceof java.sql.SQLTransientException || x instanceof java.sql.SQLRecoverableException)
                return true;
            String state = x.getSQLState();
            // 40: deadlock or serialization failure; 08: connection; 57P: the server is shutting down or restarting.
            if (state != null && (state.startsWith("40") || state.startsWith("08") || state.startsWith("57P")))
                return true;
            String msg = String.valueOf(x.getMessage());
            if (msg.contains("SQLITE_BUSY") || msg.contains("SQLITE_LOCKED")) return true;
        }
        return false;
    }

    private static String abbreviate(String sql) {
        String s = sql.replaceAll("\\s+", " ").trim();
        return s.length() > 120 ? s.substring(0, 117) + "..." : s;
    }
}

package dev.idem.bench;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Finished history written straight into a bench database by SQL, far faster than delivering it: each of the one
 * finished one-shot's rows (schedule, delivery, attempt: the template, delivered through the engine beforehand) is
 * copied {@code n} times by {@code generate_series}, with new ids and with its instants spread evenly over a span.
 * Every column not named here is copied from the template, so the rows stay what the store writes as its columns
 * change.
 */
final class HistorySql {
    /** Rows per statement: one transaction each, so a progress line comes every few seconds. */
    private static final int CHUNK = 250_000;

    private HistorySql() {}

    /**
     * Writes {@code n} finished one-shots (schedule, delivery, attempt; or the deliveries alone) whose instants run
     * evenly from {@code fromMillis} over {@code spanMillis}; every {@code deadEvery}-th delivery (0: none) is dead
     * instead of succeeded. The database (PostgreSQL, or SQLite) must hold exactly one schedule, delivery and attempt:
     * the template.
     */
    static void insert(
            Connection c,
            boolean sqlite,
            long n,
            long fromMillis,
            long spanMillis,
            long deadEvery,
            boolean deliveriesOnly)
            throws Exception {
        String at = "(" + fromMillis + " + CAST(g AS BIGINT) * " + spanMillis + " / " + n + ")";
        String status =
                deadEvery > 0 ? "CASE WHEN g % " + deadEvery + " = 0 THEN 'dead' ELSE t.status END" : "t.status";
        String[] template = new String[3];
        String[] tables = {"schedules", "deliveries", "attempts"};
        for (int i = 0; i < tables.length; i++)
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT id, count(*) OVER () FROM " + tables[i] + " LIMIT 1")) {
                if (!rs.next() || rs.getLong(2) != 1)
                    throw new IllegalStateException(tables[i] + " must hold exactly one row, the template");
                template[i] = rs.getString(1);
            }
        long t0 = System.nanoTime();
        for (long from = 1; from <= n; from += CHUNK) {
            long to = Math.min(n, from + CHUNK - 1);
            if (!deliveriesOnly)
                copy(
                        c,
                        sqlite,
                        "schedules",
                        template[0],
                        Map.of("id", "t.id || '-h' || g", "created_at", at, "updated_at", at),
                        from,
                        to);
            copy(
                    c,
                    sqlite,
                    "deliveries",
                    template[1],
                    Map.of(
                            "id", "t.id || '-h' || g",
                            "schedule_id", "t.schedule_id || '-h' || g",
                            "scheduled_for", at,
                            "created_at", at,
                            "updated_at", at,
                            "status", status),
                    from,
                    to);
            if (!deliveriesOnly)
                copy(
                        c,
                        sqlite,
                        "attempts",
                        template[2],
                        Map.of(
                                "id",
                                "t.id || '-h' || g",
                                "delivery_id",
                                "t.delivery_id || '-h' || g",
                                "started_at",
                                at),
                        from,
                        to);
            System.out.printf(
                    Locale.ROOT,
                    "  history: %,d of %,d one-shots written (%.0f s)%n",
                    to,
                    n,
                    (System.nanoTime() - t0) / 1e9);
        }
    }

    /** Copies row {@code id} of {@code table} for {@code g} in {@code from..to}, {@code overrides} per column. */
    static void copy(
            Connection c, boolean sqlite, String table, String id, Map<String, String> overrides, long from, long to)
            throws Exception {
        List<String> columns = new ArrayList<>();
        List<String> values = new ArrayList<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(
                        sqlite
                                ? "SELECT name FROM pragma_table_info('" + table + "') ORDER BY cid"
                                : "SELECT column_name FROM information_schema.columns WHERE table_name = '" + table
                                        + "' AND table_schema = current_schema() ORDER BY ordinal_position")) {
            while (rs.next()) {
                String col = rs.getString(1);
                columns.add(col);
                values.add(overrides.getOrDefault(col, "t." + col));
            }
        }
        // SQLite has no generate_series without its extension: a recursive CTE counts instead
        String series = sqlite
                ? "(WITH RECURSIVE s(g) AS (SELECT " + from + " UNION ALL SELECT g + 1 FROM s WHERE g < " + to
                        + ") SELECT g FROM s) gs"
                : "generate_series(" + from + ", " + to + ") g";
        try (Statement s = c.createStatement()) {
            s.executeUpdate("INSERT INTO " + table + " (" + String.join(", ", columns) + ") SELECT "
                    + String.join(", ", values) + " FROM " + table + " t, " + series + " WHERE t.id = '" + id + "'");
        }
    }
}

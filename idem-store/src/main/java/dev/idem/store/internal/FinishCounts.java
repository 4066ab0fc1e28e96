package dev.idem.store.internal;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Table {@code delivery_counts} (V62): per tenant and second, how many deliveries succeeded and how many went dead,
 * added to in the transaction that finishes them, so the dashboard's counters over a window read one row per second
 * of it instead of every delivery that finished in it.
 */
final class FinishCounts {
    private FinishCounts() {}

    /**
     * Counts those of {@code deliveryIds} that are now succeeded or dead as finished at {@code nowMillis}. Called after
     * the statement that finished them, at the end of its transaction: the counter rows are locked until it commits,
     * in one order (tenant, then second) in every transaction, so two cannot deadlock on them.
     */
    static void add(Sql sql, Collection<String> deliveryIds, long nowMillis) {
        if (deliveryIds.isEmpty()) return;
        Map<String, long[]> byTenant = new TreeMap<>();
        for (List<String> chunk : JdbcDeliveryQueue.chunks(List.copyOf(deliveryIds)))
            sql.query(
                    "SELECT project_id, mode, status, COUNT(*) FROM deliveries WHERE id IN (" + Sql.marks(chunk.size())
                            + ") AND status IN ('succeeded', 'dead') GROUP BY project_id, mode, status",
                    rs -> {
                        long[] n = byTenant.computeIfAbsent(rs.getString(1) + '\n' + rs.getString(2), k -> new long[2]);
                        n["succeeded".equals(rs.getString(3)) ? 0 : 1] += rs.getLong(4);
                        return null;
                    },
                    chunk.toArray());
        if (byTenant.isEmpty()) return;
        long second = Math.floorDiv(nowMillis, 1000L);
        List<Object[]> rows = new ArrayList<>(byTenant.size());
        byTenant.forEach((key, n) -> {
            int cut = key.indexOf('\n');
            rows.add(new Object[] {key.substring(0, cut), key.substring(cut + 1), second, n[0], n[1]});
        });
        sql.batch(
                "INSERT INTO delivery_counts (project_id, mode, at_second, succeeded, died) VALUES (?, ?, ?, ?, ?) "
                        + "ON CONFLICT (project_id, mode, at_second) DO UPDATE SET "
                        + "succeeded = delivery_counts.succeeded + excluded.succeeded, "
                        + "died = delivery_counts.died + excluded.died",
                rows);
    }

    /**
     * A tenant's deliveries that succeeded and that went dead from the second {@code since} falls in until now:
     * {@code {succeeded, died}}.
     */
    static long[] since(Sql sql, String projectId, String mode, Instant since) {
        return sql.one(
                        "SELECT COALESCE(SUM(succeeded), 0), COALESCE(SUM(died), 0) FROM delivery_counts "
                                + "WHERE project_id = ? AND mode = ? AND at_second >= ?",
                        rs -> new long[] {rs.getLong(1), rs.getLong(2)},
                        projectId,
                        mode,
                        Math.floorDiv(since.toEpochMilli(), 1000L))
                .orElse(new long[2]);
    }

    /** Deletes up to {@code limit} counter rows of seconds before {@code before}; returns how many. */
    static int prune(Sql sql, Dialect dialect, Instant before, int limit) {
        String row = dialect.rowId();
        return sql.update(
                "DELETE FROM delivery_counts WHERE "
                        + dialect.inSubquery(
                                row,
                                "SELECT " + row
                                        + " FROM delivery_counts WHERE at_second < ? ORDER BY at_second LIMIT ?"),
                Math.floorDiv(before.toEpochMilli(), 1000L),
                limit);
    }
}

package dev.idem.store.internal;

import java.time.Instant;
import java.util.List;

/**
 * The pruner's statements: each deletes one batch, oldest first, found through an index of its own (V60), so a batch
 * costs the same however much history or live work the tables hold. Each predicate is repeated word for word in the
 * batch's subquery and in the delete itself: SQLite uses a partial index only when the query states its predicate,
 * and on PostgreSQL the delete re-checks each row as it is now, so a row that changed after the subquery read it (a
 * replay made its schedule active again, a delivery appeared) is left alone.
 */
final class Pruning {
    static final String FINISHED = "status IN ('succeeded', 'dead', 'cancelled')";
    static final String SETTLED = "status IN ('completed', 'deleted')";
    private static final String NO_DELIVERY_LEFT_OF_SCHEDULE =
            "NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.schedule_id = schedules.id)";
    private static final String NO_DELIVERY_LEFT_OF_MESSAGE =
            "NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.message_id = messages.id)";

    private Pruning() {}

    /** Up to {@code limit} finished deliveries last updated before {@code before}, with their attempts. */
    static int finishedDeliveries(Sql sql, Dialect dialect, Instant before, int limit) {
        List<String> ids = sql.query(
                "DELETE FROM deliveries WHERE "
                        + dialect.inSubquery(
                                "id",
                                "SELECT id FROM deliveries WHERE " + FINISHED
                                        + " AND updated_at < ? ORDER BY updated_at LIMIT ?")
                        + " AND " + FINISHED + " RETURNING id",
                rs -> rs.getString(1),
                before,
                limit);
        for (List<String> chunk : JdbcDeliveryQueue.chunks(ids)) {
            sql.update("DELETE FROM attempts WHERE delivery_id IN (" + Sql.marks(chunk.size()) + ")", chunk.toArray());
            JdbcDeliveryTraces.delete(sql, chunk);
        }
        return ids.size();
    }

    /**
     * Up to {@code limit} completed or deleted schedules last changed before {@code before} whose deliveries are all
     * gone. A schedule settles in the transaction that finishes its last delivery (or cancels its pending ones), so the
     * rows the index yields past the cutoff have, but for the odd replay, no delivery left: the batch reads little more
     * than it deletes.
     */
    static int settledSchedules(Sql sql, Dialect dialect, Instant before, int limit) {
        return batch(
                sql,
                dialect,
                "schedules",
                SETTLED + " AND updated_at < ? AND " + NO_DELIVERY_LEFT_OF_SCHEDULE,
                "updated_at",
                before,
                limit);
    }

    /** Up to {@code limit} messages created before {@code before} whose deliveries are all gone. */
    static int messages(Sql sql, Dialect dialect, Instant before, int limit) {
        return batch(
                sql,
                dialect,
                "messages",
                "created_at < ? AND " + NO_DELIVERY_LEFT_OF_MESSAGE,
                "created_at",
                before,
                limit);
    }

    /** Up to {@code limit} portal sessions that expired before {@code before}. */
    static int portalSessions(Sql sql, Dialect dialect, Instant before, int limit) {
        return batch(sql, dialect, "portal_sessions", "expires_at < ?", "expires_at", before, limit);
    }

    /**
     * Up to {@code limit} portal links that expired before {@code before} (revoked or not: a revoked link goes when it
     * would have expired) and have no session left. The audit log copies a link's id and label, so its entries
     * outlive the link.
     */
    static int portalLinks(Sql sql, Dialect dialect, Instant before, int limit) {
        String noSession = "NOT EXISTS (SELECT 1 FROM portal_sessions s WHERE s.access_id = portal_access.id)";
        return batch(sql, dialect, "portal_access", "expires_at < ? AND " + noSession, "expires_at", before, limit);
    }

    /** Up to {@code limit} audit log entries written before {@code before}. */
    static int auditEntries(Sql sql, Dialect dialect, Instant before, int limit) {
        return batch(sql, dialect, "audit_log", "created_at < ?", "created_at", before, limit);
    }

    /**
     * Up to {@code limit} flow-control counters last used in a second before {@code before}. A claim reads a key's
     * counter only for the current second, so a stale row and no row mean the same, and a counter a claim moves on
     * meanwhile stays (the delete checks its second again). The table holds one row per key used since the last
     * prune, so the batch scans it without an index of its own (one on the second would end the HOT updates of the
     * row each rate-limited claim writes).
     */
    static int flowUsage(Sql sql, Dialect dialect, Instant before, int limit) {
        long second = Math.floorDiv(before.toEpochMilli(), 1000L);
        return batch(sql, dialect, "flow_usage", "window_second < ?", null, second, limit, "flow_key");
    }

    private static int batch(
            Sql sql, Dialect dialect, String table, String where, String oldestFirst, Object cutoff, int limit) {
        return batch(sql, dialect, table, where, oldestFirst, cutoff, limit, "id");
    }

    /**
     * Deletes up to {@code limit} rows of {@code table} that match {@code where} (one {@code ?}, the cutoff), oldest
     * first by {@code oldestFirst} (an indexed column) unless it is null; {@code where} is checked again by the delete.
     */
    private static int batch(
            Sql sql,
            Dialect dialect,
            String table,
            String where,
            String oldestFirst,
            Object cutoff,
            int limit,
            String key) {
        String order = oldestFirst == null ? "" : " ORDER BY " + oldestFirst;
        return sql.update(
                "DELETE FROM " + table + " WHERE "
                        + dialect.inSubquery(
                                key, "SELECT " + key + " FROM " + table + " WHERE " + where + order + " LIMIT ?")
                        + " AND " + where,
                cutoff,
                limit,
                cutoff);
    }
}

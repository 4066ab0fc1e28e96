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
        for (List<String> chunk : JdbcDeliveryQueue.chunks(ids))
            sql.update("DELETE FROM attempts WHERE delivery_id IN (" + Sql.marks(chunk.size()) + ")", chunk.toArray());
        return ids.size();
    }

    /**
     * Up to {@code limit} completed or deleted schedules last changed before {@code before} whose deliveries are all
     * gone. A schedule settles in the transaction that finishes its last delivery (or cancels its pending ones), so the
     * rows the index yields past the cutoff have, but for the odd replay, no delivery left: the batch reads little more
     * than it deletes.
     */
    static int settledSchedules(Sql sql, Dialect dialect, Instant before, int limit) {
        return sql.update(
                "DELETE FROM schedules WHERE "
                        + dialect.inSubquery(
                                "id",
                                "SELECT id FROM schedules WHERE " + SETTLED + " AND updated_at < ? AND "
                                        + NO_DELIVERY_LEFT_OF_SCHEDULE + " ORDER BY updated_at LIMIT ?")
                        + " AND " + SETTLED + " AND " + NO_DELIVERY_LEFT_OF_SCHEDULE,
                before,
                limit);
    }

    /** Up to {@code limit} messages created before {@code before} whose deliveries are all gone. */
    static int messages(Sql sql, Dialect dialect, Instant before, int limit) {
        return sql.update(
                "DELETE FROM messages WHERE "
                        + dialect.inSubquery(
                                "id",
                                "SELECT id FROM messages WHERE created_at < ? AND " + NO_DELIVERY_LEFT_OF_MESSAGE
                                        + " ORDER BY created_at LIMIT ?")
                        + " AND " + NO_DELIVERY_LEFT_OF_MESSAGE,
                before,
                limit);
    }
}

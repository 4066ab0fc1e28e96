package dev.idem.store.internal;

import dev.idem.core.TraceContext;
import dev.idem.core.store.DeliveryTraceRepository;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** {@link DeliveryTraceRepository} over {@code delivery_traces} (V50): one row a delivery, each column a traceparent. */
final class JdbcDeliveryTraces implements DeliveryTraceRepository {
    private final Sql sql;

    JdbcDeliveryTraces(Sql sql) {
        this.sql = sql;
    }

    @Override
    public Map<String, DeliveryTrace> find(Collection<String> deliveryIds) {
        Map<String, DeliveryTrace> out = new HashMap<>();
        for (List<String> chunk : JdbcDeliveryQueue.chunks(List.copyOf(deliveryIds)))
            for (Object[] row : sql.query(
                    "SELECT delivery_id, occurrence, first_attempt, replay FROM delivery_traces WHERE delivery_id IN ("
                            + Sql.marks(chunk.size()) + ")",
                    rs -> new Object[] {
                        rs.getString(1),
                        new DeliveryTrace(
                                Rows.trace(rs.getString(2), null),
                                Rows.trace(rs.getString(3), null),
                                Rows.trace(rs.getString(4), null))
                    },
                    chunk.toArray())) out.put((String) row[0], (DeliveryTrace) row[1]);
        return out;
    }

    @Override
    public void occurrences(Map<String, TraceContext> byDelivery) {
        upsert("occurrence", "excluded.occurrence", byDelivery);
    }

    @Override
    public void firstAttempts(Map<String, TraceContext> byDelivery) {
        // the first one kept stays: a stale outcome of the same attempt does not move the retries' link
        upsert("first_attempt", "COALESCE(delivery_traces.first_attempt, excluded.first_attempt)", byDelivery);
    }

    @Override
    public void replays(Collection<String> deliveryIds, TraceContext replay) {
        // only for deliveries that exist: one pruned meanwhile leaves no row behind
        for (List<String> chunk : JdbcDeliveryQueue.chunks(List.copyOf(deliveryIds))) {
            Object[] args = new Object[chunk.size() + 1];
            args[0] = replay.traceparent();
            for (int i = 0; i < chunk.size(); i++) args[i + 1] = chunk.get(i);
            sql.update(
                    "INSERT INTO delivery_traces (delivery_id, replay) SELECT id, ? FROM deliveries WHERE id IN ("
                            + Sql.marks(chunk.size())
                            + ") ON CONFLICT (delivery_id) DO UPDATE SET replay = excluded.replay",
                    args);
        }
    }

    private void upsert(String column, String value, Map<String, TraceContext> byDelivery) {
        if (byDelivery.isEmpty()) return;
        List<Object[]> rows = new ArrayList<>(byDelivery.size());
        byDelivery.forEach((id, trace) -> rows.add(new Object[] {id, trace.traceparent()}));
        sql.multiRowUpdate(
                "INSERT INTO delivery_traces (delivery_id, " + column + ") VALUES ",
                "(?, ?)",
                rows,
                " ON CONFLICT (delivery_id) DO UPDATE SET " + column + " = " + value);
    }

    /** Deletes what is kept of {@code deliveryIds}, deleted with them. */
    static void delete(Sql sql, List<String> deliveryIds) {
        sql.update(
                "DELETE FROM delivery_traces WHERE delivery_id IN (" + Sql.marks(deliveryIds.size()) + ")",
                deliveryIds.toArray());
    }

    /** Deletes what is kept of those of {@code deliveryIds} that no longer exist. */
    static void deleteOrphans(Sql sql, List<String> deliveryIds) {
        sql.update(
                "DELETE FROM delivery_traces WHERE delivery_id IN (" + Sql.marks(deliveryIds.size()) + ")"
                        + " AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.id = delivery_traces.delivery_id)",
                deliveryIds.toArray());
    }
}

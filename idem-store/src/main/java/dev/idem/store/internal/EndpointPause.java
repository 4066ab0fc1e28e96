package dev.idem.store.internal;

import dev.idem.core.Origin;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * What an endpoint's state does to its messages' deliveries that are not finished: while it is disabled or deleted they
 * wait, unattempted, and enabling it lets them go on. They wait as a paused schedule's rows do: each delivery's
 * one-shot is paused ({@code paused_reason} {@value #REASON}), so every claim, the look-ahead's check before an
 * instant and the dispatcher's timer already leave them out (no new claim path, and a loop never spins on them).
 * Enabling resumes exactly those one-shots (with those of deliveries replayed while it was disabled, which the replay
 * paused the same way); a delivery that was dead stays dead (enabling replays nothing by itself), and one whose last
 * attempt ended meanwhile completes its one-shot.
 *
 * <p>Runs only when the state changes, in the transaction that changes it. The one-shots are locked in id order, as
 * outcome batches lock schedules, so an auto-disable inside an outcome batch does not deadlock with another batch.
 */
final class EndpointPause {
    /** The {@code paused_reason} of a one-shot waiting for its endpoint to be enabled. */
    static final String REASON = dev.idem.core.fanout.Endpoint.PAUSED_REASON;

    private static final String PENDING = "status IN ('scheduled', 'retrying', 'delivering')";

    private EndpointPause() {}

    /** Pauses the one-shots of the unfinished deliveries of {@code endpointIds}; returns how many. */
    static int pause(Sql sql, Dialect dialect, Collection<String> endpointIds, Instant now) {
        int n = 0;
        for (List<String> chunk : JdbcDeliveryQueue.chunks(List.copyOf(endpointIds))) {
            List<String> ids = sql.query(
                    "SELECT id FROM schedules WHERE status = 'active' AND origin = '" + Origin.Kind.MESSAGE.wireName()
                            + "' AND id IN (SELECT schedule_id FROM deliveries WHERE endpoint_id IN ("
                            + Sql.marks(chunk.size()) + ") AND " + PENDING + ") ORDER BY id" + dialect.forUpdate(),
                    rs -> rs.getString(1),
                    chunk.toArray());
            n += setStatus(
                    sql,
                    ids,
                    "UPDATE schedules SET status = 'paused', paused_reason = '" + REASON
                            + "', updated_at = ? WHERE status = 'active' AND id IN (",
                    now);
        }
        return n;
    }

    /**
     * Resumes what {@link #pause} paused for {@code endpointIds}, and completes the one-shots whose delivery has
     * nothing left to attempt; returns how many were resumed with a delivery to attempt.
     */
    static int resume(Sql sql, Dialect dialect, Collection<String> endpointIds, Instant now) {
        List<String> resumed = new ArrayList<>();
        for (List<String> chunk : JdbcDeliveryQueue.chunks(List.copyOf(endpointIds))) {
            List<String> ids = sql.query(
                    "SELECT id FROM schedules WHERE status = 'paused' AND paused_reason = '" + REASON
                            + "' AND id IN (SELECT schedule_id FROM deliveries WHERE endpoint_id IN ("
                            + Sql.marks(chunk.size()) + ")) ORDER BY id" + dialect.forUpdate(),
                    rs -> rs.getString(1),
                    chunk.toArray());
            setStatus(
                    sql,
                    ids,
                    "UPDATE schedules SET status = 'active', paused_reason = NULL, updated_at = ? "
                            + "WHERE status = 'paused' AND id IN (",
                    now);
            resumed.addAll(ids);
        }
        // a delivery whose attempt was on the wire when the endpoint was disabled may have ended since
        return resumed.size()
                - Settlement.ofHeldSchedules(sql, dialect, resumed, now).size();
    }

    private static int setStatus(Sql sql, List<String> ids, String updatePrefix, Instant now) {
        int n = 0;
        for (List<String> chunk : JdbcDeliveryQueue.chunks(ids)) {
            Object[] args = new Object[chunk.size() + 1];
            args[0] = now;
            for (int i = 0; i < chunk.size(); i++) args[i + 1] = chunk.get(i);
            n += sql.update(updatePrefix + Sql.marks(chunk.size()) + ")", args);
        }
        return n;
    }
}

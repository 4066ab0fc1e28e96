package dev.idem.store.internal;

import dev.idem.core.IdGenerator;
import dev.idem.core.InternalOneShots;
import dev.idem.core.outcome.AlertRules;
import dev.idem.core.store.DeliveryQueue;
import dev.idem.core.store.DeliveryQueue.Outcome;
import dev.idem.core.store.StoreException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the alerts ({@link AlertRules}) of one {@link DeliveryQueue#complete} in its own transaction, each as an
 * internal one-shot ({@link InternalOneShots}, origin {@code alert}). Written with the outcome, an alert is exactly as
 * durable as the fact it reports and is raised exactly once: {@code complete} applies an outcome only while its lease
 * holds, so no retry, reclaim or second node can report the same death twice, and a crash before the commit loses both.
 *
 * <p>Nothing is read unless the batch made something dead or paused (the common batch costs nothing). One alert that
 * cannot be written (a settings row a newer version wrote, say) is logged and skipped under a savepoint, so it never
 * holds up the outcomes: a delivery whose outcome is not recorded would be sent again.
 */
final class AlertWriter {
    private static final Logger log = LoggerFactory.getLogger(AlertWriter.class);

    private final IdGenerator ids;

    AlertWriter(IdGenerator ids) {
        this.ids = ids;
    }

    /**
     * @param outcomes the outcomes given to {@code complete}, in order
     * @param completed what {@code complete} applied
     * @return whether an alert was written (the dispatchers are signalled when the transaction commits)
     */
    boolean raise(JdbcTx tx, Sql sql, List<Outcome> outcomes, DeliveryQueue.Completed completed, long nowMillis) {
        if (!AlertRules.mayRaise(completed)) return false;
        Instant now = Instant.ofEpochMilli(nowMillis);
        Map<String, AlertRules.Failed> failed = read(sql, AlertRules.failedApplied(outcomes, completed));
        boolean raised = false;
        for (AlertRules.Alert a : AlertRules.alerts(
                outcomes, completed, failed, t -> tx.settings().find(t), now)) raised |= write(tx, sql, a, now);
        return raised;
    }

    /** The failed deliveries' facts with their schedules, read in this transaction after the counters changed. */
    private static Map<String, AlertRules.Failed> read(Sql sql, Map<String, Outcome> first) {
        Map<String, AlertRules.Failed> out = new HashMap<>();
        for (List<String> chunk : JdbcDeliveryQueue.chunks(new ArrayList<>(first.keySet()))) {
            sql.query(
                    "SELECT d.id AS d_id, d.scheduled_for AS d_scheduled_for, " + Rows.scheduleColumnsAs("s", "s_")
                            + " FROM deliveries d JOIN schedules s ON s.id = d.schedule_id WHERE d.id IN ("
                            + Sql.marks(chunk.size()) + ")",
                    rs -> {
                        String id = rs.getString("d_id");
                        out.put(
                                id,
                                new AlertRules.Failed(
                                        first.get(id), Rows.schedule(rs, "s_"), Sql.instant(rs, "d_scheduled_for")));
                        return null;
                    },
                    chunk.toArray());
        }
        return out;
    }

    /** Writes one alert under a savepoint; a failure that is not the transaction's (a lost race) is logged and skipped. */
    boolean write(JdbcTx tx, Sql sql, AlertRules.Alert alert, Instant now) {
        savepoint(sql);
        try {
            InternalOneShots.Created c = InternalOneShots.create(tx, ids, alert.request(), now);
            release(sql);
            log.info(
                    "alert {} about {} scheduled as delivery {} to the alert endpoint of project {} ({})",
                    alert.event().wireName(),
                    alert.about(),
                    c.deliveryId(),
                    alert.settings().tenant().projectId(),
                    alert.settings().tenant().mode().wireName());
            return true;
        } catch (RuntimeException e) {
            if (e instanceof StoreException se && se.transientFailure()) throw e; // the whole batch is tried again
            rollback(sql, e);
            log.error(
                    "the {} alert about {} of project {} ({}) could not be written and is not sent (the outcome itself is recorded): {}",
                    alert.event().wireName(),
                    alert.about(),
                    alert.settings().tenant().projectId(),
                    alert.settings().tenant().mode().wireName(),
                    e.toString());
            return false;
        }
    }

    /**
     * SQL statements, not the JDBC savepoint API: the SQLite dialect runs its transactions by hand with autocommit on,
     * where the driver refuses {@code setSavepoint}. Both databases take the same statements.
     */
    private static void savepoint(Sql sql) {
        sql.update("SAVEPOINT idem_alert");
    }

    private static void release(Sql sql) {
        sql.update("RELEASE SAVEPOINT idem_alert");
    }

    private static void rollback(Sql sql, RuntimeException cause) {
        try {
            sql.update("ROLLBACK TO SAVEPOINT idem_alert");
            sql.update("RELEASE SAVEPOINT idem_alert");
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
            throw e;
        }
    }
}

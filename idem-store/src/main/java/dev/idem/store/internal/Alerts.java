package dev.idem.store.internal;

import dev.idem.core.AlertEvent;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.IdGenerator;
import dev.idem.core.InternalOneShots;
import dev.idem.core.Origin;
import dev.idem.core.ProjectSettings;
import dev.idem.core.Schedule;
import dev.idem.core.Tenant;
import dev.idem.core.store.DeliveryQueue;
import dev.idem.core.store.DeliveryQueue.Outcome;
import dev.idem.core.store.StoreException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Raises the alerts (SPEC section 2) of one {@link DeliveryQueue#complete} in its own transaction: each delivery it made
 * dead and each schedule it paused becomes an internal one-shot ({@link InternalOneShots}, origin {@code alert}) to the
 * tenant's {@code alert_endpoint}, when the tenant chose that event. Written with the outcome, an alert is exactly as
 * durable as the fact it reports and is raised exactly once: {@code complete} applies an outcome only while its lease
 * holds, so no retry, reclaim or second node can report the same death twice, and a crash before the commit loses both.
 * The delivery of an alert ({@code origin = alert}) never raises one: an alert endpoint that is down would otherwise
 * alert about itself forever.
 *
 * <p>Nothing is read unless the batch made something dead or paused (the common batch costs nothing). One alert that
 * cannot be written (a settings row a newer version wrote, say) is logged and skipped under a savepoint, so it never
 * holds up the outcomes: a delivery whose outcome is not recorded would be sent again.
 */
final class Alerts {
    private static final Logger log = LoggerFactory.getLogger(Alerts.class);

    private final IdGenerator ids;

    Alerts(IdGenerator ids) {
        this.ids = ids;
    }

    /** What the batch's rows say about a failed delivery: its schedule as committed by this transaction. */
    private record Failed(Outcome outcome, Schedule schedule, Instant scheduledFor) {}

    /**
     * @param outcomes the outcomes given to {@code complete}, in order
     * @param completed what {@code complete} applied
     * @return whether an alert was written (the dispatchers are signalled when the transaction commits)
     */
    boolean raise(JdbcTx tx, Sql sql, List<Outcome> outcomes, DeliveryQueue.Completed completed, long nowMillis) {
        if (completed.dead().isEmpty() && completed.autoPaused().isEmpty()) return false;
        Instant now = Instant.ofEpochMilli(nowMillis);
        Map<String, Failed> failed = failedOf(sql, outcomes, completed);
        Map<Tenant, ProjectSettings> settings = new HashMap<>();
        boolean raised = false;
        for (DeliveryQueue.Dead d : completed.dead()) {
            Failed f = failed.get(d.deliveryId());
            if (f == null || !wanted(tx, settings, f.schedule(), AlertEvent.DELIVERY_DEAD)) continue;
            byte[] body = AlertBodies.deliveryDead(
                    now,
                    f.schedule(),
                    d.deliveryId(),
                    f.scheduledFor(),
                    f.outcome().attempt(),
                    d.lastError());
            raised |= write(
                    tx, sql, settings.get(f.schedule().tenant()), AlertEvent.DELIVERY_DEAD, body, now, d.deliveryId());
        }
        for (DeliveryQueue.AutoPaused p : completed.autoPaused()) {
            // the failed attempt that reached the threshold: the schedule's last failure in the batch
            Failed last = null;
            for (Outcome o : outcomes) {
                Failed f = failed.get(o.deliveryId());
                if (f != null && f.outcome() == o && f.schedule().id().equals(p.scheduleId())) last = f;
            }
            if (last == null || !wanted(tx, settings, last.schedule(), AlertEvent.SCHEDULE_AUTO_PAUSED)) continue;
            byte[] body = AlertBodies.scheduleAutoPaused(
                    now,
                    last.schedule(),
                    p.consecutiveFailures(),
                    last.outcome().deliveryId(),
                    last.outcome().attempt(),
                    last.outcome().lastError());
            raised |= write(
                    tx,
                    sql,
                    settings.get(last.schedule().tenant()),
                    AlertEvent.SCHEDULE_AUTO_PAUSED,
                    body,
                    now,
                    p.scheduleId());
        }
        return raised;
    }

    /** Whether the schedule's tenant wants {@code event} (never for an alert's own delivery). */
    private static boolean wanted(JdbcTx tx, Map<Tenant, ProjectSettings> cache, Schedule s, AlertEvent event) {
        if (s.origin() != null && s.origin().kind() == Origin.Kind.ALERT) return false;
        return cache.computeIfAbsent(s.tenant(), t -> tx.settings().find(t)).alerts(event);
    }

    /**
     * The applied failed outcomes (the first one given per delivery, the one {@code complete} applied) with their
     * schedules, read in this transaction after the counters changed.
     */
    private static Map<String, Failed> failedOf(Sql sql, List<Outcome> outcomes, DeliveryQueue.Completed completed) {
        Set<String> applied = Set.copyOf(completed.applied());
        Map<String, Outcome> first = new LinkedHashMap<>();
        for (Outcome o : outcomes)
            if (o.newStatus() != DeliveryStatus.SUCCEEDED && applied.contains(o.deliveryId()))
                first.putIfAbsent(o.deliveryId(), o);
        Map<String, Failed> out = new HashMap<>();
        for (List<String> chunk : JdbcDeliveryQueue.chunks(new ArrayList<>(first.keySet()))) {
            sql.query(
                    "SELECT d.id AS d_id, d.scheduled_for AS d_scheduled_for, " + Rows.scheduleColumnsAs("s", "s_")
                            + " FROM deliveries d JOIN schedules s ON s.id = d.schedule_id WHERE d.id IN ("
                            + Sql.marks(chunk.size()) + ")",
                    rs -> {
                        String id = rs.getString("d_id");
                        out.put(
                                id,
                                new Failed(first.get(id), Rows.schedule(rs, "s_"), Sql.instant(rs, "d_scheduled_for")));
                        return null;
                    },
                    chunk.toArray());
        }
        return out;
    }

    /** Writes one alert under a savepoint; a failure that is not the transaction's (a lost race) is logged and skipped. */
    private boolean write(
            JdbcTx tx, Sql sql, ProjectSettings settings, AlertEvent event, byte[] body, Instant now, String about) {
        savepoint(sql);
        try {
            InternalOneShots.Created c = InternalOneShots.create(
                    tx,
                    ids,
                    InternalOneShots.Request.of(
                                    settings.tenant(),
                                    Origin.alert(),
                                    settings.alertEndpoint(),
                                    body,
                                    "application/json")
                            .withEventType(event.wireName()),
                    now);
            release(sql);
            log.info(
                    "alert {} about {} scheduled as delivery {} to the alert endpoint of project {} ({})",
                    event.wireName(),
                    about,
                    c.deliveryId(),
                    settings.tenant().projectId(),
                    settings.tenant().mode().wireName());
            return true;
        } catch (RuntimeException e) {
            if (e instanceof StoreException se && se.transientFailure()) throw e; // the whole batch is tried again
            rollback(sql, e);
            log.error(
                    "the {} alert about {} of project {} ({}) could not be written and is not sent (the outcome itself is recorded): {}",
                    event.wireName(),
                    about,
                    settings.tenant().projectId(),
                    settings.tenant().mode().wireName(),
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

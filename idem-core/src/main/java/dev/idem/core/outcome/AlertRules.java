package dev.idem.core.outcome;

import dev.idem.core.AlertEvent;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.InternalOneShots;
import dev.idem.core.Origin;
import dev.idem.core.ProjectSettings;
import dev.idem.core.Schedule;
import dev.idem.core.Tenant;
import dev.idem.core.store.DeliveryQueue;
import dev.idem.core.store.DeliveryQueue.Outcome;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * The alerts (docs/alerts.md) a batch of outcomes raises: each delivery it made dead and each schedule it paused, to
 * the tenant's {@code alert_endpoint}, when the tenant chose that event. The delivery of an alert ({@code origin =
 * alert}) never raises one: an alert endpoint that is down would otherwise alert about itself forever.
 *
 * <p>The store writes each alert returned here as an internal one-shot ({@link Alert#request}) in the transaction
 * that applied the outcomes, so an alert is exactly as durable as the fact it reports and raised exactly once.
 */
public final class AlertRules {
    private AlertRules() {}

    /** Whether {@code completed} may raise an alert at all: when not, nothing needs to be read for it. */
    public static boolean mayRaise(DeliveryQueue.Completed completed) {
        return !completed.dead().isEmpty() || !completed.autoPaused().isEmpty();
    }

    /**
     * The applied failed outcomes an alert may be about, by delivery id: the first one given per delivery (the one
     * applied). The store reads each one's {@link Failed facts}.
     */
    public static Map<String, Outcome> failedApplied(List<Outcome> outcomes, DeliveryQueue.Completed completed) {
        Set<String> applied = Set.copyOf(completed.applied());
        Map<String, Outcome> first = new LinkedHashMap<>();
        for (Outcome o : outcomes)
            if (o.newStatus() != DeliveryStatus.SUCCEEDED && applied.contains(o.deliveryId()))
                first.putIfAbsent(o.deliveryId(), o);
        return first;
    }

    /**
     * A failed delivery as the batch's transaction reads it after the outcomes were applied.
     *
     * @param outcome its outcome ({@link #failedApplied})
     * @param schedule its schedule, as this batch left it
     */
    public record Failed(Outcome outcome, Schedule schedule, Instant scheduledFor) {
        public Failed {
            Objects.requireNonNull(outcome, "outcome");
            Objects.requireNonNull(schedule, "schedule");
        }
    }

    /**
     * One alert to write.
     *
     * @param settings the tenant's settings (its alert endpoint)
     * @param body the JSON body ({@code docs/alerts.md})
     * @param about the delivery or schedule id it reports, for the log
     */
    public record Alert(AlertEvent event, ProjectSettings settings, byte[] body, String about) {
        /** The internal one-shot that delivers it. */
        public InternalOneShots.Request request() {
            return InternalOneShots.Request.of(
                            settings.tenant(), Origin.alert(), settings.alertEndpoint(), body, "application/json")
                    .withEventType(event.wireName());
        }
    }

    /**
     * The alerts to write, deaths first, in the order of {@code completed}.
     *
     * @param outcomes the batch, in the order given
     * @param failed the facts of {@link #failedApplied}'s deliveries, by delivery id (one missing raises nothing)
     * @param settings the settings of a tenant; asked at most once per tenant, and only for a schedule whose alerts
     *     are possible at all
     * @param now the instant the alerts say it happened
     */
    public static List<Alert> alerts(
            List<Outcome> outcomes,
            DeliveryQueue.Completed completed,
            Map<String, Failed> failed,
            Function<Tenant, ProjectSettings> settings,
            Instant now) {
        Map<Tenant, ProjectSettings> cache = new HashMap<>();
        Function<Tenant, ProjectSettings> lookup = t -> cache.computeIfAbsent(t, settings);
        List<Alert> out = new ArrayList<>();
        for (DeliveryQueue.Dead d : completed.dead()) {
            Failed f = failed.get(d.deliveryId());
            if (f == null || !wanted(lookup, f.schedule(), AlertEvent.DELIVERY_DEAD)) continue;
            byte[] body = AlertBodies.deliveryDead(
                    now,
                    f.schedule(),
                    d.deliveryId(),
                    f.scheduledFor(),
                    f.outcome().attempt(),
                    d.lastError());
            out.add(new Alert(
                    AlertEvent.DELIVERY_DEAD, lookup.apply(f.schedule().tenant()), body, d.deliveryId()));
        }
        for (DeliveryQueue.AutoPaused p : completed.autoPaused()) {
            // the failed attempt that reached the threshold: the schedule's last failure in the batch
            Failed last = null;
            for (Outcome o : outcomes) {
                Failed f = failed.get(o.deliveryId());
                if (f != null && f.outcome() == o && f.schedule().id().equals(p.scheduleId())) last = f;
            }
            if (last == null || !wanted(lookup, last.schedule(), AlertEvent.SCHEDULE_AUTO_PAUSED)) continue;
            byte[] body = AlertBodies.scheduleAutoPaused(
                    now,
                    last.schedule(),
                    p.consecutiveFailures(),
                    last.outcome().deliveryId(),
                    last.outcome().attempt(),
                    last.outcome().lastError());
            out.add(new Alert(
                    AlertEvent.SCHEDULE_AUTO_PAUSED,
                    lookup.apply(last.schedule().tenant()),
                    body,
                    p.scheduleId()));
        }
        return out;
    }

    /** Whether the schedule's tenant wants {@code event} (never for an alert's own delivery). */
    private static boolean wanted(Function<Tenant, ProjectSettings> settings, Schedule s, AlertEvent event) {
        if (s.origin() != null && s.origin().kind() == Origin.Kind.ALERT) return false;
        return settings.apply(s.tenant()).alerts(event);
    }
}

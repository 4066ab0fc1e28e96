package dev.idem.core.outcome;

import dev.idem.core.AlertEvent;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.Durations;
import dev.idem.core.ProjectSettings;
import dev.idem.core.fanout.DisabledReason;
import dev.idem.core.fanout.Endpoint;
import dev.idem.core.store.DeliveryQueue.Outcome;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a batch of outcomes does to the endpoints its message deliveries went to: each endpoint's
 * {@link EndpointHealth} takes the batch's attempts in order, and an endpoint whose every attempt has failed for its
 * project's {@code disable_after} is disabled ({@link DisabledReason#FAILING}) with an {@code endpoint.disabled} alert
 * when the project chose that event. The store reads and writes; the rules are here.
 */
public final class EndpointHealthRules {
    private EndpointHealthRules() {}

    /**
     * The attempts of {@code outcomes} per endpoint, in the batch's order.
     *
     * @param endpointOf delivery id → endpoint id of the applied deliveries that are messages'
     */
    public static Map<String, List<EndpointHealth.Result>> results(
            List<Outcome> outcomes, Map<String, String> endpointOf) {
        Map<String, List<EndpointHealth.Result>> out = new LinkedHashMap<>();
        for (Outcome o : outcomes) {
            String endpoint = endpointOf.get(o.deliveryId());
            if (endpoint == null) continue;
            boolean ok = o.newStatus() == DeliveryStatus.SUCCEEDED;
            out.computeIfAbsent(endpoint, k -> new ArrayList<>())
                    .add(new EndpointHealth.Result(o.attempt().startedAt(), ok, ok ? null : o.lastError()));
        }
        return out;
    }

    /** An endpoint to disable and the alert that says so (empty when the project did not choose it). */
    public record Disabling(Endpoint disabled, Optional<AlertRules.Alert> alert) {}

    /**
     * What to do about {@code endpoint} whose health is now {@code health}: disable it when it is active and has
     * failed every attempt for {@code settings.disableAfter()}; empty otherwise.
     */
    public static Optional<Disabling> disabling(
            Endpoint endpoint, EndpointHealth health, ProjectSettings settings, Instant now) {
        if (!endpoint.active() || !health.failingFor(settings.disableAfter(), now)) return Optional.empty();
        Endpoint disabled = endpoint.withDisabled(DisabledReason.FAILING, now);
        Optional<AlertRules.Alert> alert = settings.alerts(AlertEvent.ENDPOINT_DISABLED)
                ? Optional.of(new AlertRules.Alert(
                        AlertEvent.ENDPOINT_DISABLED,
                        settings,
                        AlertBodies.endpointDisabled(now, endpoint, health, Durations.format(settings.disableAfter())),
                        endpoint.id()))
                : Optional.empty();
        return Optional.of(new Disabling(disabled, alert));
    }
}

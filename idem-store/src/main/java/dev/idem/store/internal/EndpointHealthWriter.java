package dev.idem.store.internal;

import dev.idem.core.ProjectSettings;
import dev.idem.core.Tenant;
import dev.idem.core.fanout.Endpoint;
import dev.idem.core.outcome.EndpointHealth;
import dev.idem.core.outcome.EndpointHealthRules;
import dev.idem.core.store.DeliveryQueue.Outcome;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Applies one batch's attempts to the health of the endpoints its message deliveries went to
 * ({@link EndpointHealthRules}), in the transaction that records the outcomes, and disables an endpoint that has
 * failed every attempt for its project's {@code disable_after}, raising {@code endpoint.disabled} through
 * {@link AlertWriter}. A batch with no message delivery reads nothing.
 */
final class EndpointHealthWriter {
    private final AlertWriter alerts;
    private final Dialect dialect;

    EndpointHealthWriter(AlertWriter alerts, Dialect dialect) {
        this.alerts = alerts;
        this.dialect = dialect;
    }

    /**
     * @param endpointOf delivery id → endpoint id of the applied deliveries that are messages'
     * @return whether an alert was written
     */
    boolean apply(JdbcTx tx, Sql sql, List<Outcome> outcomes, Map<String, String> endpointOf, long nowMillis) {
        if (endpointOf.isEmpty()) return false;
        Instant now = Instant.ofEpochMilli(nowMillis);
        Map<String, List<EndpointHealth.Result>> results = EndpointHealthRules.results(outcomes, endpointOf);
        Map<String, Tenant> tenantOf = tenants(sql, results.keySet());
        JdbcEndpointHealth health = new JdbcEndpointHealth(sql);
        Map<Tenant, ProjectSettings> settings = new HashMap<>();
        // the endpoint's own row only: the outcome's transaction holds no master key and reads no secret
        JdbcEndpoints endpoints = new JdbcEndpoints(sql, dialect, null);
        boolean alerted = false;
        // endpoint ids in order: two batches touching the same endpoints take their rows in the same order
        for (String endpointId : new java.util.TreeSet<>(results.keySet())) {
            Tenant tenant = tenantOf.get(endpointId);
            if (tenant == null) continue;
            EndpointHealth before =
                    health.find(tenant, List.of(endpointId)).getOrDefault(endpointId, EndpointHealth.none(now));
            EndpointHealth after = before.after(results.get(endpointId), now);
            health.save(endpointId, tenant, after);
            if (!after.failingFor(EndpointHealth.DEFAULT_DISABLE_AFTER, now) && after.failingSince() == null) continue;
            ProjectSettings s =
                    settings.computeIfAbsent(tenant, t -> tx.settings().find(t));
            if (!after.failingFor(s.disableAfter(), now)) continue;
            Endpoint e = endpoints.findForUpdate(tenant, endpointId).orElse(null);
            if (e == null) continue;
            var disabling = EndpointHealthRules.disabling(e, after, s, now);
            if (disabling.isEmpty()) continue;
            endpoints.update(disabling.get().disabled());
            if (disabling.get().alert().isPresent())
                alerted |= alerts.write(tx, sql, disabling.get().alert().get(), now);
        }
        return alerted;
    }

    private static Map<String, Tenant> tenants(Sql sql, java.util.Set<String> endpointIds) {
        Map<String, Tenant> out = new HashMap<>();
        for (List<String> chunk : JdbcDeliveryQueue.chunks(List.copyOf(endpointIds)))
            sql.query(
                    "SELECT id, project_id, mode FROM endpoints WHERE id IN (" + Sql.marks(chunk.size()) + ")",
                    rs -> out.put(rs.getString("id"), Rows.tenant(rs, "")),
                    chunk.toArray());
        return out;
    }
}

package dev.idem.store.internal;

import dev.idem.core.FlowControl;
import dev.idem.core.Origin;
import dev.idem.core.Tenant;
import java.util.Collection;
import java.util.List;

/**
 * What a new {@code rate_limit} does to the deliveries already waiting. The claim reads an endpoint's and its
 * application's limits when it runs, for every delivery under the endpoint's flow key ({@link FlowControl#forEndpoint});
 * a delivery made while neither had a limit has none, and is claimed the way without flow control. When the endpoint
 * or its application is given a limit, the one-shots of its unfinished deliveries get the key in the same transaction,
 * so the limit holds for them from the next claim on, and a delivery replayed later gets the key with its replay. A
 * limit removed needs nothing: the key stays and the claim reads no limit.
 *
 * <p>The one-shots are locked in id order, as outcome batches and {@link EndpointPause} lock schedules.
 */
final class EndpointLimits {
    private static final String PENDING = "status IN ('scheduled', 'retrying', 'delivering')";

    private EndpointLimits() {}

    /** Puts the one-shots of the unfinished deliveries of {@code endpointIds} under their flow keys; returns how many. */
    static int limit(Sql sql, Dialect dialect, Tenant tenant, Collection<String> endpointIds) {
        int n = 0;
        for (String endpointId : endpointIds) {
            List<String> ids = sql.query(
                    "SELECT id FROM schedules WHERE flow_key IS NULL AND origin = '" + Origin.Kind.MESSAGE.wireName()
                            + "' AND id IN (SELECT schedule_id FROM deliveries WHERE endpoint_id = ? AND " + PENDING
                            + ") ORDER BY id" + dialect.forUpdate(),
                    rs -> rs.getString(1),
                    endpointId);
            String key = FlowControl.endpointKey(tenant, endpointId);
            for (List<String> chunk : JdbcDeliveryQueue.chunks(ids)) {
                Object[] args = new Object[chunk.size() + 1];
                args[0] = key;
                for (int i = 0; i < chunk.size(); i++) args[i + 1] = chunk.get(i);
                n += sql.update(
                        "UPDATE schedules SET flow_key = ? WHERE flow_key IS NULL AND id IN (" + Sql.marks(chunk.size())
                                + ")",
                        args);
            }
        }
        // this process's claims ask again at once whether any flow control exists (other nodes: within a second)
        if (n > 0) Claims.flowControlWritten();
        return n;
    }

    /**
     * Puts the one-shots of replayed deliveries {@code deliveryIds} under their endpoints' flow keys where the endpoint
     * or its application has a {@code rate_limit} and the one-shot has no key yet (it finished before the limit came);
     * the caller holds their rows. Returns how many.
     */
    static int replayed(Sql sql, Tenant tenant, Collection<String> deliveryIds) {
        int n = 0;
        for (List<String> chunk : JdbcDeliveryQueue.chunks(List.copyOf(deliveryIds))) {
            List<String[]> unkeyed = sql.query(
                    "SELECT d.schedule_id, d.endpoint_id FROM deliveries d JOIN schedules s ON s.id = d.schedule_id "
                            + "JOIN endpoints e ON e.id = d.endpoint_id "
                            + "LEFT JOIN applications a ON a.id = e.application_id WHERE d.id IN ("
                            + Sql.marks(chunk.size()) + ") AND s.flow_key IS NULL "
                            + "AND (e.rate_limit IS NOT NULL OR a.rate_limit IS NOT NULL)",
                    rs -> new String[] {rs.getString(1), rs.getString(2)},
                    chunk.toArray());
            for (String[] u : unkeyed)
                n += sql.update(
                        "UPDATE schedules SET flow_key = ? WHERE id = ? AND flow_key IS NULL",
                        FlowControl.endpointKey(tenant, u[1]),
                        u[0]);
        }
        if (n > 0) Claims.flowControlWritten();
        return n;
    }
}

package dev.idem.store.internal;

import dev.idem.core.FlowControl;
import dev.idem.core.store.DeliveryQueue.Claim;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The flow keys a flow-controlled claim counts its deliveries under: a schedule's own key, or for a message's delivery
 * its endpoint's key ({@link FlowControl#endpointKey}) and, when the endpoint has an application, the application's
 * ({@link ClaimSql#APPLICATION_KEY}, read from the database so the claim and the count spell it alike).
 */
final class FlowUsage {
    private FlowUsage() {}

    /** How many of {@code claims} count under each key, keys in order. */
    static Map<String, Integer> keysOf(Sql sql, List<Claim> claims) {
        Map<String, Integer> perKey = new TreeMap<>();
        List<String> endpointIds = new ArrayList<>();
        for (Claim c : claims) {
            String endpointId = c.delivery().endpointId();
            if (endpointId != null) {
                // a delivery put under its endpoint's limits after it was made has no flow control in its definition
                perKey.merge(FlowControl.endpointKey(c.schedule().tenant(), endpointId), 1, Integer::sum);
                endpointIds.add(endpointId);
            } else {
                FlowControl fc = c.schedule().definition().flowControl();
                if (fc != null) perKey.merge(fc.scopedKey(c.schedule().tenant()), 1, Integer::sum);
            }
        }
        if (endpointIds.isEmpty()) return perKey;
        Map<String, String> applicationKeys = new HashMap<>();
        for (List<String> chunk :
                JdbcDeliveryQueue.chunks(endpointIds.stream().distinct().toList()))
            sql.query(
                    "SELECT fe.id, " + ClaimSql.APPLICATION_KEY
                            + " FROM endpoints fe WHERE fe.application_id IS NOT NULL " + "AND fe.id IN ("
                            + Sql.marks(chunk.size()) + ")",
                    rs -> applicationKeys.put(rs.getString(1), rs.getString(2)),
                    chunk.toArray());
        for (String endpointId : endpointIds) {
            String key = applicationKeys.get(endpointId);
            if (key != null) perKey.merge(key, 1, Integer::sum);
        }
        return perKey;
    }
}

package dev.idem.core.fanout;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Which endpoints a message goes to: the rule of fan-out, in one place. A message of event type E, for application A
 * or for none, with payload P, goes to every endpoint of its tenant that is active (neither disabled nor deleted),
 * belongs to A when A is named (any endpoint of the tenant, with or without an application, when none is), subscribes
 * to E and whose filter matches P.
 */
public final class Subscribers {
    private Subscribers() {}

    /**
     * The endpoints among {@code candidates} (any endpoints of the message's tenant) that receive the message, in the
     * candidates' order.
     *
     * @param applicationId the message's application id (not its uid), or null for a message to the whole tenant
     * @param payload the payload's JSON tree, or null when the body is not JSON (then only endpoints without a filter,
     *     or with {@code {}}, receive it)
     */
    public static List<Endpoint> select(
            Collection<Endpoint> candidates, String applicationId, String eventType, JsonNode payload) {
        List<Endpoint> out = new ArrayList<>();
        for (Endpoint e : candidates)
            if ((applicationId == null || applicationId.equals(e.applicationId())) && e.receives(eventType, payload))
                out.add(e);
        return out;
    }
}

package dev.idem.server.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.Delivery;
import dev.idem.core.Mode;
import dev.idem.core.fanout.Message;
import java.util.List;

/** The JSON shapes of messages. */
final class MessageViews {
    private MessageViews() {}

    static ObjectNode message(Message m) {
        ObjectNode o = Json.object();
        o.put("id", m.id());
        o.put("object", "message");
        o.put("livemode", m.tenant().mode() == Mode.LIVE);
        o.put("event_type", m.eventType());
        o.put("application", m.applicationId());
        o.set("payload", JsonBody.verbatim(m.payloadJson()));
        o.put("idempotency_key", m.idempotencyKey());
        o.put("dedup_id", m.dedupId());
        o.put("schedule_id", m.scheduleId());
        o.put("scheduled_for", m.scheduledFor() == null ? null : Json.time(m.scheduledFor()));
        o.put("deliveries", m.deliveries());
        o.put("created_at", Json.time(m.createdAt()));
        return o;
    }

    /** The message with its delivery to each endpoint ({@code endpoint_deliveries}), oldest first. */
    static ObjectNode withDeliveries(Message m, List<Delivery> deliveries) {
        ObjectNode o = message(m);
        ArrayNode a = o.putArray("endpoint_deliveries");
        deliveries.forEach(d -> a.add(Views.delivery(d, null)));
        return o;
    }
}

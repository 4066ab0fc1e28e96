package dev.idem.server.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.IdGenerator;
import dev.idem.core.Tenant;
import dev.idem.core.fanout.Endpoint;
import dev.idem.core.fanout.EventType;
import dev.idem.core.fanout.FanOut;
import dev.idem.core.fanout.Message;
import dev.idem.core.fanout.MessageSending;
import dev.idem.core.store.StoreTx;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.Set;

/**
 * {@code POST /v1/endpoints/{id}/send-test}: a chosen event type's example sent to one endpoint as a real message of
 * its application, delivered and signed as every message is, to that endpoint alone (whatever its event types and
 * filter) and marked {@code Idem-Test: true} in its headers ({@link FanOut#test}).
 */
final class TestEventService {
    static final Set<String> FIELDS = Set.of("event_type");

    private final IdGenerator ids;
    private final Clock clock;

    TestEventService(IdGenerator ids, Clock clock) {
        this.ids = ids;
        this.clock = clock;
    }

    /** @param trace the trace context the test's attempt continues (the request's), or null */
    ApiResponse send(StoreTx tx, Tenant tenant, String endpointId, ObjectNode body, dev.idem.core.TraceContext trace) {
        Fields f = Fields.of(body).only(FIELDS);
        String name = f.requiredString("event_type", EventType.MAX_NAME_LENGTH);
        Endpoint endpoint = EndpointService.find(tx, tenant, endpointId);
        if (endpoint.deleted())
            throw ApiException.invalid("endpoint_deleted", "id", "Endpoint " + endpointId + " is deleted");
        if (endpoint.disabled())
            throw ApiException.invalid(
                    "endpoint_disabled",
                    "id",
                    "Endpoint " + endpointId + " is disabled; enable it before sending it a test event");
        EventType type = tx.eventTypes()
                .find(tenant, name)
                .orElseThrow(() -> ApiException.invalid(
                        "event_type_unknown", "event_type", "No event type named '" + name + "' in the catalogue"));
        if (type.exampleJson() == null)
            throw ApiException.invalid(
                    "event_type_without_example",
                    "event_type",
                    "Event type '" + name + "' has no example to send; give it one (PATCH /v1/event-types/" + name
                            + ")");
        Instant now = clock.instant();
        Message m = Message.sent(
                ids.next("msg"), tenant, name, endpoint.applicationId(), type.exampleJson(), null, null, now);
        Message sent = MessageSending.sendTest(tx, ids, m, endpoint, now, trace)
                .orElseThrow(() -> new IllegalStateException("a new message id " + m.id() + " was taken"));
        ObjectNode view = MessageViews.withDeliveries(sent, tx.deliveries().ofMessage(tenant, sent.id()));
        return new ApiResponse(201, view, Map.of());
    }
}

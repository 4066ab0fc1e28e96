package dev.idem.server.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.DedupKey;
import dev.idem.core.DedupReservation;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.IdGenerator;
import dev.idem.core.Page;
import dev.idem.core.Tenant;
import dev.idem.core.fanout.EventType;
import dev.idem.core.fanout.Message;
import dev.idem.core.fanout.MessageSending;
import dev.idem.core.store.Store;
import dev.idem.core.store.StoreTx;
import java.time.Clock;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The {@code /v1/messages} operations. A message is checked whole before anything is written (its fields on the
 * request's thread, then the application and the payload against its event type's schema in the transaction), then
 * stored with its fan-out in the request's transaction ({@link MessageSending}), which a group commit shares.
 */
final class MessageService {
    static final Set<String> FIELDS = Set.of("event_type", "application", "payload", "idempotency_key", "dedup_id");

    private final Store store;
    private final IdGenerator ids;
    private final Clock clock;

    MessageService(Store store, IdGenerator ids, Clock clock) {
        this.store = store;
        this.ids = ids;
        this.clock = clock;
    }

    /** A message request's body, checked and parsed on the request's thread (not the group commit's writer). */
    record Parsed(
            String eventType,
            String application,
            String payload,
            JsonNode payloadTree,
            String idempotencyKey,
            String dedupId) {}

    /** Checks {@code body} as far as it can be without the store; a 400 naming the field when it is wrong. */
    static Parsed parse(ObjectNode body) {
        Fields f = Fields.of(body).only(FIELDS);
        String eventType = f.requiredString("event_type", EventType.MAX_NAME_LENGTH);
        EventType.nameProblem(eventType).ifPresent(p -> {
            throw ApiException.invalid("parameter_invalid", "event_type", "event_type: " + p);
        });
        String reference = f.string("application", dev.idem.core.fanout.Application.MAX_UID_LENGTH);
        JsonNode raw = f.raw("payload");
        if (raw == null || raw.isMissingNode())
            throw ApiException.invalid("parameter_missing", "payload", "Missing required parameter: payload");
        String payload = JsonBody.text(raw);
        String idempotencyKey = f.string("idempotency_key", 255);
        String dedupId = f.string("dedup_id", 255);
        return new Parsed(eventType, reference, payload, tree(payload), idempotencyKey, dedupId);
    }

    /** Sends a parsed message in {@code tx}: it may be a group commit's, and run twice there. */
    ApiResponse send(StoreTx tx, Tenant tenant, Parsed m, dev.idem.core.TraceContext trace) {
        String applicationId = m.application() == null
                ? null
                : FanoutFields.liveApplication(tx, tenant, m.application(), "application")
                        .id();
        tx.eventTypes()
                .find(tenant, m.eventType())
                .ifPresent(t -> FanoutFields.conform(t.schema(), m.payload(), "payload", "payload_invalid"));
        Instant now = clock.instant();
        String id = ids.next("msg");
        if (m.dedupId() != null) {
            var first = DedupReservation.reserve(tx, tenant, DedupKey.ofMessage(m.dedupId()), id, now);
            if (first.isPresent())
                return new ApiResponse(
                        200, MessageViews.message(find(tx, tenant, first.get())), Map.of("Idem-Deduplicated", "true"));
        }
        Message message = Message.sent(
                id, tenant, m.eventType(), applicationId, m.payload(), m.idempotencyKey(), m.dedupId(), now);
        Message sent = MessageSending.send(tx, ids, message, m.payloadTree(), now, trace)
                .orElseThrow(() -> new IllegalStateException("a new message id " + id + " was taken"));
        return new ApiResponse(201, MessageViews.message(sent), Map.of());
    }

    ObjectNode get(Tenant tenant, String id) {
        return store.inReadTransaction(tx -> {
            Message m = find(tx, tenant, id);
            return MessageViews.withDeliveries(m, tx.deliveries().ofMessage(tenant, id));
        });
    }

    /**
     * Messages newest first, every filter applied in the store (so pages stay full and the cursor exact).
     *
     * @param deliveryStatus comma-separated delivery states: only messages with a delivery in one of them
     */
    ObjectNode list(
            Tenant tenant,
            String eventType,
            String application,
            String since,
            String until,
            String deliveryStatus,
            int limit,
            String after) {
        var filter = ListFilters.parse(eventType, since, until);
        Set<DeliveryStatus> statuses = statuses(deliveryStatus);
        return store.inReadTransaction(tx -> {
            if (after != null) find(tx, tenant, after);
            String applicationId = application == null
                    ? null
                    : FanoutFields.knownApplication(tx, tenant, application, "application")
                            .id();
            Page<Message> page = tx.messages()
                    .list(
                            tenant,
                            filter.eventType(),
                            applicationId,
                            filter.since(),
                            filter.until(),
                            statuses,
                            limit,
                            after);
            return Views.list("/v1/messages", page, MessageViews::message);
        });
    }

    private static Message find(StoreTx tx, Tenant tenant, String id) {
        return tx.messages().find(tenant, id).orElseThrow(() -> ApiException.notFound("message", id));
    }

    /** The states of a comma-separated {@code delivery_status}; empty for none given. */
    static Set<DeliveryStatus> statuses(String list) {
        Set<DeliveryStatus> out = EnumSet.noneOf(DeliveryStatus.class);
        if (list == null) return out;
        for (String part : list.split(",", -1)) {
            try {
                out.add(DeliveryStatus.parse(part.trim()));
            } catch (IllegalArgumentException e) {
                throw ApiException.invalid(
                        "parameter_invalid",
                        "delivery_status",
                        "delivery_status: '" + part.trim() + "' is not a delivery state; give one or more of "
                                + "scheduled, delivering, retrying, succeeded, dead, cancelled, separated by commas");
            }
        }
        return out;
    }

    private static JsonNode tree(String json) {
        try {
            return Json.MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a payload the body parser accepted did not parse again", e);
        }
    }
}

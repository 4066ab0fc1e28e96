package dev.idem.core.fanout;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.core.DedupKey;
import dev.idem.core.DedupReservation;
import dev.idem.core.IdGenerator;
import dev.idem.core.Origin;
import dev.idem.core.Tenant;
import dev.idem.core.store.StoreTx;
import java.time.Instant;

/**
 * An inbound source's verified event sent as a message ({@link MessageSending}) when the source's destination is a
 * {@link FanOutTarget}: one delivery per endpoint subscribed to the event's type. The provider's event id, when there
 * is one, deduplicates as it does for a source forwarding to a URL (the same key, for 24 h): a provider's retry of an
 * event already accepted finds the first message and writes nothing.
 */
public final class InboundFanOut {
    private InboundFanOut() {}

    /**
     * What one event did.
     *
     * @param messageId the message written, or the first one when deduplicated (null when the first was forwarded to a
     *     URL)
     * @param deliveries how many endpoints it went to (the first message's count when deduplicated)
     */
    public record Sent(String messageId, int deliveries, boolean deduplicated) {}

    /**
     * Writes the event's message in the caller's transaction.
     *
     * @param payloadJson the request body as sent, which is JSON text ({@code payload} its tree)
     * @param eventId the provider's event id, or null (then every request is a message of its own)
     * @param trace the provider's trace context (or Idem's ingest span's), which every attempt continues; null for none
     */
    public static Sent send(
            StoreTx tx,
            IdGenerator ids,
            Tenant tenant,
            String sourceId,
            FanOutTarget target,
            String eventType,
            String payloadJson,
            JsonNode payload,
            String eventId,
            Instant now,
            dev.idem.core.TraceContext trace) {
        String id = ids.next("msg");
        if (eventId != null) {
            var first = DedupReservation.reserve(
                    tx, tenant, DedupKey.ofInternal(Origin.source(sourceId), eventId), id, now);
            if (first.isPresent()) {
                // the holder is a one-shot when the source forwarded to a URL when the event first came
                return tx.messages()
                        .find(tenant, first.get())
                        .map(m -> new Sent(m.id(), m.deliveries(), true))
                        .orElse(new Sent(null, 0, true));
            }
        }
        Message m = Message.sent(id, tenant, eventType, target.applicationId(), payloadJson, null, eventId, now);
        Message sent = MessageSending.send(tx, ids, m, payload, now, trace)
                .orElseThrow(() -> new IllegalStateException("a new message id " + id + " was taken"));
        return new Sent(sent.id(), sent.deliveries(), false);
    }
}

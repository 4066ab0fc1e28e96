package dev.idem.client.model;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;
import dev.idem.client.internal.Json;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The body of {@code POST /v1/messages}, serialised once: every retry of the call sends the same bytes, so Idem's
 * request fingerprint always matches the first attempt's.
 *
 * <pre>{@code
 * MessageSend m = MessageSend.builder("invoice.paid").application("cust_42")
 *         .payload(Map.of("invoice", "in_7", "amount", 1500)).idempotencyKey("in_7-paid").build();
 * }</pre>
 */
public final class MessageSend {
    private final String json;

    private MessageSend(String json) {
        this.json = json;
    }

    /** A message of event type {@code eventType} ({@code invoice.paid}); {@link Builder#payload} is required. */
    public static Builder builder(String eventType) {
        return new Builder().param("event_type", Objects.requireNonNull(eventType, "eventType"));
    }

    /** The body as JSON text. */
    public String toJson() {
        return json;
    }

    /** The body as UTF-8 bytes. */
    public byte[] bytes() {
        return json.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return "MessageSend" + json;
    }

    /** Sets fields in the order given; {@link #build()} writes the JSON. Idem validates them, this only shapes it. */
    public static final class Builder {
        private final ObjectNode body = Json.MAPPER.createObjectNode();

        private Builder() {}

        /** The payload every endpoint receives: a map, a record, a {@link JsonNode}, anything Jackson writes. */
        public Builder payload(Object payload) {
            return param("payload", payload);
        }

        /**
         * The payload as JSON text, sent byte for byte: endpoints receive it verbatim (key order, number forms).
         *
         * @throws IllegalArgumentException when the text is not JSON
         */
        public Builder payloadJson(String json) {
            try {
                if (json == null || Json.MAPPER.readTree(json) == null)
                    throw new IllegalArgumentException("a payload must be JSON text, got none");
            } catch (JsonProcessingException e) {
                throw new IllegalArgumentException("the payload is not JSON: " + e.getOriginalMessage(), e);
            }
            body.putRawValue("payload", new RawValue(json.strip()));
            return this;
        }

        /** Only this application's endpoints receive it (its id or uid); not set: every endpoint of the project. */
        public Builder application(String idOrUid) {
            return param("application", idOrUid);
        }

        /**
         * Your own id for the event: each endpoint's {@code Idempotency-Key} header becomes {@code <key>:<endpoint
         * id>} (without it, {@code <message id>:<endpoint id>}).
         */
        public Builder idempotencyKey(String key) {
            return param("idempotency_key", key);
        }

        /** A second message with the same {@code dedup_id} within 24 h returns the first one and sends nothing. */
        public Builder dedupId(String dedupId) {
            return param("dedup_id", dedupId);
        }

        /** Any field by its API name ({@code null} becomes JSON null): one this client does not know yet. */
        public Builder param(String name, Object value) {
            if (name == null || name.isEmpty()) throw new IllegalArgumentException("a field name is required");
            body.set(name, value instanceof JsonNode n ? n : Json.MAPPER.valueToTree(value));
            return this;
        }

        /** @throws IllegalArgumentException when no payload was set */
        public MessageSend build() {
            if (!body.has("payload")) throw new IllegalArgumentException("payload is required");
            return new MessageSend(body.toString());
        }
    }
}

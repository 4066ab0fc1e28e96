package dev.idem.client.model;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;

/**
 * A kind of message, by name ({@code invoice.paid}).
 *
 * @param schema the JSON Schema its payloads must conform to, or null
 * @param example an example payload, or null
 */
public record EventType(
        String name,
        boolean livemode,
        String description,
        JsonNode schema,
        JsonNode example,
        boolean deprecated,
        Instant createdAt,
        Instant updatedAt) {
    public EventType {
        schema = dev.idem.client.internal.Json.orNull(schema);
        example = dev.idem.client.internal.Json.orNull(example);
    }
}

package dev.idem.client.model;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A URL receiving messages ({@code ep_…}). Never its secret: {@code idem.endpoints().secret(id)} reveals that.
 *
 * @param application the owning application's id, or null for an endpoint of the project itself
 * @param status {@code enabled}, {@code disabled} or {@code deleted}
 * @param disabledReason {@code manual}, {@code application_deleted} or {@code failing}; null while enabled
 * @param eventTypes names and prefixes it subscribes to, or null for every event type
 * @param filter its filter over the payload, or null
 */
public record Endpoint(
        String id,
        boolean livemode,
        String url,
        String application,
        String description,
        String status,
        boolean disabled,
        String disabledReason,
        List<String> eventTypes,
        JsonNode filter,
        Map<String, String> headers,
        Integer rateLimit,
        JsonNode metadata,
        Instant createdAt,
        Instant updatedAt) {
    public Endpoint {
        filter = dev.idem.client.internal.Json.orNull(filter);
        metadata = dev.idem.client.internal.Json.orNull(metadata);
    }
}

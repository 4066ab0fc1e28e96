package dev.idem.client.model;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;

/**
 * One of your customers ({@code app_…}), owning endpoints.
 *
 * @param uid your own id for it, usable wherever {@link #id} is; or null
 * @param status {@code active} or {@code deleted}
 * @param rateLimit deliveries a second to all its endpoints together, or null
 */
public record Application(
        String id,
        boolean livemode,
        String uid,
        String name,
        String status,
        JsonNode metadata,
        Integer rateLimit,
        Instant createdAt,
        Instant updatedAt) {
    public Application {
        metadata = dev.idem.client.internal.Json.orNull(metadata);
    }
}

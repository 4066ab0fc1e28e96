package dev.idem.client.model;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.List;

/**
 * An event sent to every endpoint subscribed to it ({@code msg_…}), stored once, with one delivery per endpoint.
 *
 * @param application the application it went to (its id), or null for every endpoint of the project
 * @param payload what every endpoint receives
 * @param idempotencyKey the caller's own id for the event, or null
 * @param scheduleId the fan-out schedule whose occurrence it is, or null for a message sent by a call
 * @param scheduledFor that occurrence's time, or null
 * @param deliveries how many endpoints it was fanned out to (0 when none matched)
 * @param endpointDeliveries its delivery to each endpoint, oldest first ({@link Delivery#endpointId()} names the
 *     endpoint), when the message was read alone; null in lists and in the answer to a send
 */
public record Message(
        String id,
        String object,
        Boolean livemode,
        String eventType,
        String application,
        JsonNode payload,
        String idempotencyKey,
        String dedupId,
        String scheduleId,
        Instant scheduledFor,
        int deliveries,
        Instant createdAt,
        List<Delivery> endpointDeliveries) {
    public Message {
        endpointDeliveries = endpointDeliveries == null ? null : List.copyOf(endpointDeliveries);
    }
}

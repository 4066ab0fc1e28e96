package dev.idem.client.model;

import java.time.Instant;
import java.util.List;

/**
 * One occurrence of a schedule and its attempts so far. Statuses are the API's strings: {@code scheduled},
 * {@code delivering}, {@code retrying}, {@code succeeded}, {@code dead}, {@code cancelled}.
 *
 * @param scheduleId the schedule it is an occurrence of (for a message's delivery, an internal one-shot)
 * @param messageId the message it delivers, or null for a schedule's or a source's delivery
 * @param endpointId the endpoint it goes to ({@code ep_…}), or null when it is not a message's
 * @param idempotencyKey the key the receiver sees on every attempt
 * @param attempts every attempt, oldest first, when the delivery was read alone; null in lists
 */
public record Delivery(
        String id,
        String object,
        Boolean livemode,
        String scheduleId,
        String messageId,
        String endpointId,
        String status,
        Instant scheduledFor,
        Long sequence,
        String idempotencyKey,
        Integer attemptCount,
        Instant nextAttemptAt,
        String lastError,
        Instant createdAt,
        Instant updatedAt,
        List<Attempt> attempts) {

    /** In the dead-letter queue. */
    public boolean isDead() {
        return "dead".equals(status);
    }
}

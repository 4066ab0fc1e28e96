package dev.idem.core.fanout;

import dev.idem.core.Tenant;
import java.time.Instant;
import java.util.Objects;

/**
 * One event a project sends ({@code msg_…}), stored once and delivered to every endpoint subscribed to it when it was
 * sent: one delivery per endpoint, each with its own attempts. Its id is the {@code webhook-id} of every one of them.
 *
 * @param applicationId the application whose endpoints it goes to (its id, never its uid), or null for every endpoint
 *     of the tenant
 * @param payloadJson the payload as compact JSON text, sent verbatim as every delivery's body
 * @param idempotencyKey the caller's own key: each endpoint's {@code Idempotency-Key} is built from it, else null
 * @param dedupId the caller's enqueue dedup id, or null
 * @param scheduleId the schedule whose occurrence made it (scheduled fan-out), else null
 * @param scheduledFor that occurrence, else null
 * @param deliveries how many endpoints it was fanned out to
 */
public record Message(
        String id,
        Tenant tenant,
        String eventType,
        String applicationId,
        String payloadJson,
        String idempotencyKey,
        String dedupId,
        String scheduleId,
        Instant scheduledFor,
        int deliveries,
        Instant createdAt) {
    public static final String ID_PREFIX = "msg_";

    public Message {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(eventType, "eventType");
        Objects.requireNonNull(payloadJson, "payloadJson");
        Objects.requireNonNull(createdAt, "createdAt");
        if ((scheduleId == null) != (scheduledFor == null))
            throw new IllegalArgumentException("a scheduled message names both its schedule and its occurrence");
        if (deliveries < 0) throw new IllegalArgumentException("deliveries must not be negative");
    }

    /** A message sent through the API, before it is fanned out. */
    public static Message sent(
            String id,
            Tenant tenant,
            String eventType,
            String applicationId,
            String payloadJson,
            String idempotencyKey,
            String dedupId,
            Instant now) {
        return new Message(
                id, tenant, eventType, applicationId, payloadJson, idempotencyKey, dedupId, null, null, 0, now);
    }

    /** This message fanned out to {@code n} endpoints. */
    public Message withDeliveries(int n) {
        return new Message(
                id,
                tenant,
                eventType,
                applicationId,
                payloadJson,
                idempotencyKey,
                dedupId,
                scheduleId,
                scheduledFor,
                n,
                createdAt);
    }

    /**
     * The {@code Idempotency-Key} its delivery to {@code endpointId} carries: stable per (message, endpoint), the same
     * on every attempt, built from the caller's key when one was given.
     */
    public String idempotencyKeyFor(String endpointId) {
        return (idempotencyKey == null ? id : idempotencyKey) + ":" + endpointId;
    }
}

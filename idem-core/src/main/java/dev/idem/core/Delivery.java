package dev.idem.core;

import java.time.Instant;
import java.util.Objects;

/**
 * One occurrence of a schedule, delivered at least once. Its id is the {@code webhook-id} and,
 * with {@code idempotencyKey}, stays the same on every retry and reclaim.
 *
 * @param attemptCount attempts started so far; the next one is number {@code attemptCount + 1}
 * @param nextAttemptAt when it may next be claimed (pending states only)
 * @param leaseOwner the node holding it while {@code DELIVERING}, else null
 * @param replayed whether it was made due again by a replay: then it gets one attempt, and a failure is dead again
 * @param messageId the message this delivery carries to one of its endpoints (fan-out), else null
 * @param endpointId the endpoint it goes to when it carries a message, else null
 */
public record Delivery(
        String id,
        Tenant tenant,
        String scheduleId,
        Instant scheduledFor,
        long sequence,
        DeliveryStatus status,
        int attemptCount,
        Instant nextAttemptAt,
        String idempotencyKey,
        String leaseOwner,
        Instant leaseExpiresAt,
        String lastError,
        Instant createdAt,
        Instant updatedAt,
        boolean replayed,
        String messageId,
        String endpointId) {

    /** A delivery that carries no message. */
    public Delivery(
            String id,
            Tenant tenant,
            String scheduleId,
            Instant scheduledFor,
            long sequence,
            DeliveryStatus status,
            int attemptCount,
            Instant nextAttemptAt,
            String idempotencyKey,
            String leaseOwner,
            Instant leaseExpiresAt,
            String lastError,
            Instant createdAt,
            Instant updatedAt,
            boolean replayed) {
        this(
                id,
                tenant,
                scheduleId,
                scheduledFor,
                sequence,
                status,
                attemptCount,
                nextAttemptAt,
                idempotencyKey,
                leaseOwner,
                leaseExpiresAt,
                lastError,
                createdAt,
                updatedAt,
                replayed,
                null,
                null);
    }

    /** A delivery that was never replayed and carries no message. */
    public Delivery(
            String id,
            Tenant tenant,
            String scheduleId,
            Instant scheduledFor,
            long sequence,
            DeliveryStatus status,
            int attemptCount,
            Instant nextAttemptAt,
            String idempotencyKey,
            String leaseOwner,
            Instant leaseExpiresAt,
            String lastError,
            Instant createdAt,
            Instant updatedAt) {
        this(
                id,
                tenant,
                scheduleId,
                scheduledFor,
                sequence,
                status,
                attemptCount,
                nextAttemptAt,
                idempotencyKey,
                leaseOwner,
                leaseExpiresAt,
                lastError,
                createdAt,
                updatedAt,
                false);
    }

    public Delivery {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(scheduleId, "scheduleId");
        Objects.requireNonNull(scheduledFor, "scheduledFor");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(idempotencyKey, "idempotencyKey");
        Objects.requireNonNull(createdAt, "createdAt");
        Objects.requireNonNull(updatedAt, "updatedAt");
        if ((messageId == null) != (endpointId == null))
            throw new IllegalArgumentException("a delivery of a message names both the message and the endpoint");
    }

    /** Whether it carries a message to one endpoint (fan-out): then the message id is its {@code webhook-id}. */
    public boolean ofMessage() {
        return messageId != null;
    }

    /** This delivery carrying message {@code messageId} to endpoint {@code endpointId}, under {@code key}. */
    public Delivery forMessage(String messageId, String endpointId, String key) {
        return new Delivery(
                id,
                tenant,
                scheduleId,
                scheduledFor,
                sequence,
                status,
                attemptCount,
                nextAttemptAt,
                key,
                leaseOwner,
                leaseExpiresAt,
                lastError,
                createdAt,
                updatedAt,
                replayed,
                Objects.requireNonNull(messageId, "messageId"),
                Objects.requireNonNull(endpointId, "endpointId"));
    }

    /** A new delivery for an occurrence, due at its scheduled time. */
    public static Delivery scheduled(String id, Schedule schedule, Instant scheduledFor, long sequence, Instant now) {
        String key = dev.idem.wire.IdempotencyKeys.forOccurrence(
                schedule.definition().idempotencyKey(), schedule.definition().recurring(), scheduledFor, id);
        return new Delivery(
                id,
                schedule.tenant(),
                schedule.id(),
                scheduledFor,
                sequence,
                DeliveryStatus.SCHEDULED,
                0,
                scheduledFor,
                key,
                null,
                null,
                null,
                now,
                now);
    }
}

package dev.idem.wire;

import java.time.Instant;

/** Derives the {@code Idempotency-Key} of a delivery; stable per occurrence across retries and reclaims. */
public final class IdempotencyKeys {
    private IdempotencyKeys() {}

    /**
     * @param userKey the schedule's {@code idempotency_key}, or null
     * @param recurring whether the schedule is recurring (rrule or cron)
     * @param scheduledFor the occurrence's instant
     * @param deliveryId the delivery id, used when there is no user key
     */
    public static String forOccurrence(String userKey, boolean recurring, Instant scheduledFor, String deliveryId) {
        if (userKey == null || userKey.isEmpty()) return deliveryId;
        return recurring ? userKey + ":" + Rfc3339.format(scheduledFor) : userKey;
    }
}

package dev.idem.wire;

import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;

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

    /** RFC 3339 in UTC with milliseconds, the one form Idem writes instants in. */
    public static final class Rfc3339 {
        private static final DateTimeFormatter F = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'")
                .withZone(java.time.ZoneOffset.UTC);

        private Rfc3339() {}

        public static String format(Instant instant) {
            return F.format(instant.truncatedTo(ChronoUnit.MILLIS));
        }
    }
}

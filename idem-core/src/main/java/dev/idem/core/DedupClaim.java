package dev.idem.core;

import java.time.Instant;
import java.util.Objects;

/**
 * A {@code dedup_id} reservation: the first schedule created under a key holds it for {@link IdempotencyWindow#LENGTH}
 * from {@code createdAt} ({@link DedupReservation}).
 *
 * @param key the reservation key ({@link DedupKey#value()}); it contains a newline, which no {@code Idempotency-Key}
 *     header can, so a reservation never meets a request's {@link IdempotencyRecord} although both share one unique key
 *     in the store
 * @param scheduleId the schedule that holds the key
 */
public record DedupClaim(Tenant tenant, String key, String scheduleId, Instant createdAt) {
    public DedupClaim {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(scheduleId, "scheduleId");
        Objects.requireNonNull(createdAt, "createdAt");
        if (key.indexOf('\n') < 0)
            throw new IllegalArgumentException("a dedup reservation key must contain a newline: " + key);
    }
}

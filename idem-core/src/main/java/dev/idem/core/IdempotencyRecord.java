package dev.idem.core;

import java.time.Instant;

/**
 * A request-idempotency record (the caller → Idem): a key, the request's fingerprint, and once
 * completed, the response to replay.
 *
 * @param lockedUntil while in progress, when a crashed holder's claim may be taken over
 * @param responseStatus null while in progress
 */
public record IdempotencyRecord(
        Tenant tenant,
        String key,
        String fingerprint,
        Instant createdAt,
        Instant lockedUntil,
        Integer responseStatus,
        byte[] responseBody) {
    public boolean completed() {
        return responseStatus != null;
    }
}

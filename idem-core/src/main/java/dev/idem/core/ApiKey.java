package dev.idem.core;

import java.time.Instant;

/**
 * An API key as stored: only its SHA-256 hash and a short display prefix, never the key itself.
 *
 * @param revokedAt null while the key is valid
 */
public record ApiKey(
        String id, Tenant tenant, String hash, String displayPrefix, Instant createdAt, Instant revokedAt) {
    public boolean active() {
        return revokedAt == null;
    }
}

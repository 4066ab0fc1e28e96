package dev.idem.core.portal;

import dev.idem.core.Tenant;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * A portal link as stored: the SHA-256 of its token (never the token), the one application it reaches, what it grants
 * and until when.
 *
 * @param session the creator's label for it, or null; revoking by label ends every link with that label
 * @param revokedAt null while it is not revoked
 */
public record PortalAccess(
        String id,
        Tenant tenant,
        String applicationId,
        String hash,
        Set<Capability> capabilities,
        String session,
        Instant createdAt,
        Instant expiresAt,
        Instant revokedAt) {
    public static final Duration MIN_EXPIRY = Duration.ofHours(1);
    public static final Duration MAX_EXPIRY = Duration.ofDays(7);
    public static final int MAX_SESSION_LENGTH = 100;

    public PortalAccess {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(applicationId, "applicationId");
        Objects.requireNonNull(expiresAt, "expiresAt");
        capabilities = capabilities.isEmpty()
                ? Collections.unmodifiableSet(EnumSet.noneOf(Capability.class))
                : Collections.unmodifiableSet(EnumSet.copyOf(capabilities));
    }

    /** Whether it opens sessions at {@code now}: neither revoked nor expired. */
    public boolean activeAt(Instant now) {
        return revokedAt == null && now.isBefore(expiresAt);
    }

    public boolean grants(Capability c) {
        return capabilities.contains(c);
    }
}

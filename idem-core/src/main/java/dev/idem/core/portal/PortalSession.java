package dev.idem.core.portal;

import java.time.Duration;
import java.time.Instant;

/**
 * The short session a portal page holds once it has exchanged its link's token: the SHA-256 of the session's token
 * and the link it came from, so that revoking the link ends the session too.
 */
public record PortalSession(String id, String accessId, String hash, Instant createdAt, Instant expiresAt) {
    /** How long a session lasts at most; never past its link's expiry. */
    public static final Duration LIFETIME = Duration.ofHours(1);

    /** The end of a session opened at {@code now} from {@code access}. */
    public static Instant endOf(PortalAccess access, Instant now) {
        Instant end = now.plus(LIFETIME);
        return end.isBefore(access.expiresAt()) ? end : access.expiresAt();
    }

    public boolean activeAt(Instant now) {
        return now.isBefore(expiresAt);
    }
}

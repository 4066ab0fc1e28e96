package dev.idem.client.model;

import java.time.Instant;

/**
 * The project's signing secret ({@code whsec_…}). Keep it out of logs: {@link #toString()} hides it.
 *
 * @param previousExpiresAt after a rotation, until when deliveries are also signed with the previous secret; else null
 */
public record SigningSecret(String secret, Instant previousExpiresAt) {
    @Override
    public String toString() {
        return "SigningSecret[secret=whsec_…, previousExpiresAt=" + previousExpiresAt + "]";
    }
}

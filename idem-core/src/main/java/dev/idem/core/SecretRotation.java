package dev.idem.core;

import java.time.Duration;

/**
 * What a secret rotation promises, for both kinds of secret Idem rotates: its own signing secret (SPEC section 2,
 * "Signing secret": after {@code POST /v1/signing-secret/rotate} deliveries carry signatures by both the new and the
 * old secret for 24 h, {@link SigningSecrets}) and an inbound source's provider secret (a changed secret leaves the
 * old one verifying as long, {@link Source#withSecret}). One value, so the two cannot drift apart.
 */
public final class SecretRotation {
    /**
     * How long a rotated-out secret keeps working: 24 hours, the time receivers get to switch to the new signing
     * secret, and what a provider's own roll (Stripe's) allows at most.
     */
    public static final Duration OVERLAP = Duration.ofHours(24);

    private SecretRotation() {}
}

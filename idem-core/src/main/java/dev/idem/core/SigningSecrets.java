package dev.idem.core;

import dev.idem.core.SecretRotation.Retired;
import dev.idem.wire.SigningSecret;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * The signing secrets of a tenant: the current one and those rotated out within {@link SecretRotation#OVERLAP}.
 *
 * @param retired the rotated-out secrets, newest first (at most {@link SecretRotation#MAX_RETIRED})
 */
public record SigningSecrets(Tenant tenant, SigningSecret current, List<Retired<SigningSecret>> retired) {
    public SigningSecrets {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(current, "current");
        retired = List.copyOf(retired);
    }

    /** A tenant's first secret: nothing rotated out. */
    public SigningSecrets(Tenant tenant, SigningSecret current) {
        this(tenant, current, List.of());
    }

    /** The secrets a delivery at {@code now} is signed with: the current one first, then every retired one still working. */
    public List<SigningSecret> activeAt(Instant now) {
        return SecretRotation.activeAt(current, retired, now);
    }

    /** These secrets after {@code next} replaces the current one at {@code now}. */
    public SigningSecrets rotatedTo(SigningSecret next, Instant now) {
        return new SigningSecrets(tenant, next, SecretRotation.retire(current, next, retired, now));
    }

    /** When the last rotated-out secret stops signing, or null when none signs at {@code now}. */
    public Instant overlapEndAt(Instant now) {
        return SecretRotation.overlapEnd(retired, now);
    }

    /** Never the secrets. */
    @Override
    public String toString() {
        return "SigningSecrets[" + tenant + ", retired=" + retired.size() + "]";
    }
}

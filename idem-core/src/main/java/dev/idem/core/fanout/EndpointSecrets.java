package dev.idem.core.fanout;

import dev.idem.core.SecretRotation;
import dev.idem.core.SecretRotation.Retired;
import dev.idem.wire.SigningSecret;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * An endpoint's own signing secrets: the current one and those rotated out within {@link SecretRotation#OVERLAP}, which
 * keep signing beside it (the project's secrets rotate by the same rule). Stored sealed, never logged.
 *
 * @param retired the rotated-out secrets still kept, newest first
 */
public record EndpointSecrets(String endpointId, SigningSecret current, List<Retired<SigningSecret>> retired) {
    public EndpointSecrets {
        Objects.requireNonNull(endpointId, "endpointId");
        Objects.requireNonNull(current, "current");
        retired = List.copyOf(retired);
    }

    /** An endpoint's first secret. */
    public EndpointSecrets(String endpointId, SigningSecret current) {
        this(endpointId, current, List.of());
    }

    /** The secrets a delivery at {@code now} is signed with: the current one first, then each still working. */
    public List<SigningSecret> activeAt(Instant now) {
        return SecretRotation.activeAt(current, retired, now);
    }

    /** These secrets after {@code next} replaces the current one at {@code now}. */
    public EndpointSecrets rotatedTo(SigningSecret next, Instant now) {
        return new EndpointSecrets(endpointId, next, SecretRotation.retire(current, next, retired, now));
    }

    /** When the last rotated-out secret stops signing, or null when none signs at {@code now}. */
    public Instant overlapEndAt(Instant now) {
        return SecretRotation.overlapEnd(retired, now);
    }

    /** Never the secrets. */
    @Override
    public String toString() {
        return "EndpointSecrets[" + endpointId + ", retired=" + retired.size() + "]";
    }
}

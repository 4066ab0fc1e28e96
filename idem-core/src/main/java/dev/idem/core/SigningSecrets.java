package dev.idem.core;

import dev.idem.wire.SigningSecret;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The signing secrets of a tenant: the current one and, for a while after a rotation, the previous.
 *
 * @param previous null when there is none
 * @param previousExpiresAt when {@code previous} stops being used
 */
public record SigningSecrets(Tenant tenant, SigningSecret current, SigningSecret previous, Instant previousExpiresAt) {
    public SigningSecrets {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(current, "current");
    }

    /** The secrets a delivery at {@code now} is signed with, current first. */
    public List<SigningSecret> activeAt(Instant now) {
        List<SigningSecret> out = new ArrayList<>(2);
        out.add(current);
        if (previous != null && previousExpiresAt != null && now.isBefore(previousExpiresAt)) out.add(previous);
        return out;
    }
}

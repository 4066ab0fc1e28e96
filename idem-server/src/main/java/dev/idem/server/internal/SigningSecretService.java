package dev.idem.server.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.SecretRotation;
import dev.idem.core.SigningSecrets;
import dev.idem.core.Tenant;
import dev.idem.core.store.Store;
import dev.idem.core.store.StoreTx;
import dev.idem.wire.SigningSecret;
import java.time.Clock;
import java.time.Instant;
import java.util.random.RandomGenerator;

/**
 * One signing secret per tenant; rotation keeps the old one, and every one rotated out before it within {@link
 * SecretRotation#OVERLAP} (24 hours, at most {@link SecretRotation#MAX_RETIRED}), signing beside the new one.
 */
public final class SigningSecretService {
    private final Store store;
    private final Clock clock;
    private final RandomGenerator random;

    public SigningSecretService(Store store, Clock clock, RandomGenerator random) {
        this.store = store;
        this.clock = clock;
        this.random = random;
    }

    public ObjectNode get(Tenant tenant) {
        return view(store.inTransaction(tx -> tx.signingSecrets().find(tenant).orElseGet(() -> {
            SigningSecrets fresh = new SigningSecrets(tenant, SigningSecret.generate(random));
            tx.signingSecrets().save(fresh);
            return fresh;
        })));
    }

    /** A new current secret; the old ones keep signing as {@link SigningSecrets#rotatedTo} says. */
    public ApiResponse rotate(StoreTx tx, Tenant tenant) {
        SigningSecrets rotated = tx.signingSecrets()
                .find(tenant)
                .map(old -> old.rotatedTo(SigningSecret.generate(random), clock.instant()))
                .orElseGet(() -> new SigningSecrets(tenant, SigningSecret.generate(random)));
        tx.signingSecrets().save(rotated);
        return ApiResponse.ok(view(rotated));
    }

    private ObjectNode view(SigningSecrets s) {
        ObjectNode o = Json.object();
        o.put("object", "signing_secret");
        o.put("secret", s.current().reveal());
        Instant overlapEnd = s.overlapEndAt(clock.instant());
        o.put("previous_expires_at", overlapEnd == null ? null : Json.time(overlapEnd));
        return o;
    }
}

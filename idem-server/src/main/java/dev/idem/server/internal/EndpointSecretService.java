package dev.idem.server.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.Tenant;
import dev.idem.core.fanout.Endpoint;
import dev.idem.core.fanout.EndpointSecrets;
import dev.idem.core.store.Store;
import dev.idem.core.store.StoreTx;
import dev.idem.wire.SigningSecret;
import java.time.Clock;
import java.util.Set;
import java.util.random.RandomGenerator;

/**
 * Each endpoint's own signing secret: generated at create (or given, {@code whsec_} and 24 to 64 key bytes, as Svix
 * takes them), revealed only by {@code GET /v1/endpoints/{id}/secret}, rotated by {@code POST …/secret/rotate} (the old
 * one keeps signing for 24 h). Stored sealed by the store.
 */
final class EndpointSecretService {
    static final int MIN_KEY_BYTES = 24;
    static final int MAX_KEY_BYTES = 64;
    private final Store store;
    private final Clock clock;
    private final RandomGenerator random;

    EndpointSecretService(Store store, Clock clock, RandomGenerator random) {
        this.store = store;
        this.clock = clock;
        this.random = random;
    }

    /** The secret a body gives in {@code secret}, checked, or null when it gives none. */
    SigningSecret given(Fields f) {
        String text = f.string("secret", 200);
        if (text == null) return null;
        SigningSecret s;
        try {
            if (!text.startsWith(SigningSecret.PREFIX)) throw new IllegalArgumentException("it must start with whsec_");
            s = SigningSecret.parse(text);
        } catch (IllegalArgumentException e) {
            throw ApiException.invalid("parameter_invalid", "secret", "secret: " + e.getMessage());
        }
        int bytes = java.util.Base64.getDecoder().decode(text.substring(SigningSecret.PREFIX.length())).length;
        if (bytes < MIN_KEY_BYTES || bytes > MAX_KEY_BYTES)
            throw ApiException.invalid(
                    "parameter_invalid",
                    "secret",
                    "secret must be whsec_ and the base64 of " + MIN_KEY_BYTES + " to " + MAX_KEY_BYTES
                            + " random bytes (got " + bytes + ")");
        return s;
    }

    /** Stores the first secret of a new endpoint: {@code given}, or a new random one. */
    void create(StoreTx tx, Tenant tenant, String endpointId, SigningSecret given) {
        SigningSecret secret = given != null ? given : SigningSecret.generate(random);
        tx.endpoints().saveSecrets(tenant, new EndpointSecrets(endpointId, secret));
    }

    ObjectNode get(Tenant tenant, String id) {
        return view(store.inTransaction(tx -> secretsOf(tx, tenant, EndpointService.find(tx, tenant, id))));
    }

    /** A new current secret ({@code {"secret": "whsec_…"}} to choose it); the old one keeps signing 24 h. */
    ApiResponse rotate(StoreTx tx, Tenant tenant, String id, ObjectNode body) {
        Endpoint e = EndpointService.lock(tx, tenant, id);
        if (e.deleted()) throw ApiException.invalid("endpoint_deleted", "id", "Endpoint " + id + " is deleted");
        SigningSecret given = given(Fields.of(body).only(Set.of("secret")));
        EndpointSecrets rotated = secretsOf(tx, tenant, e)
                .rotatedTo(given != null ? given : SigningSecret.generate(random), clock.instant());
        tx.endpoints().saveSecrets(tenant, rotated);
        return ApiResponse.ok(view(rotated));
    }

    /** The endpoint's secrets; one made before endpoints had secrets gets its first now. */
    private EndpointSecrets secretsOf(StoreTx tx, Tenant tenant, Endpoint e) {
        return tx.endpoints().secrets(tenant, e.id()).orElseGet(() -> {
            EndpointSecrets first = new EndpointSecrets(e.id(), SigningSecret.generate(random));
            tx.endpoints().saveSecrets(tenant, first);
            return first;
        });
    }

    private ObjectNode view(EndpointSecrets s) {
        ObjectNode o = Json.object();
        o.put("object", "endpoint_secret");
        o.put("endpoint", s.endpointId());
        o.put("secret", s.current().reveal());
        o.put("previous_expires_at", Json.time(s.overlapEndAt(clock.instant())));
        return o;
    }
}

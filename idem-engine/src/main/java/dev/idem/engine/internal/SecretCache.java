package dev.idem.engine.internal;

import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.LoadingCache;
import com.github.benmanes.caffeine.cache.Ticker;
import dev.idem.core.Delivery;
import dev.idem.core.SigningSecrets;
import dev.idem.core.Tenant;
import dev.idem.core.fanout.EndpointSecrets;
import dev.idem.core.store.Store;
import dev.idem.wire.SigningSecret;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Signing secrets per tenant, and per endpoint for messages' deliveries, opened (decrypted) at most once a second: one
 * store read and one decryption per tenant (or endpoint) per second instead of one per delivery, while a rotation
 * reaches the wire within a second. The opened secrets live in memory no longer than that and for at most
 * {@link #MAX_TENANTS} tenants and as many endpoints (Caffeine evicts the rest), so a node that signs for many does
 * not hold every secret for long.
 */
public final class SecretCache {
    /** How long opened secrets are kept. */
    static final Duration TTL = Duration.ofSeconds(1);

    /** How many tenants' secrets are kept at most (and, apart, how many endpoints'). */
    static final long MAX_TENANTS = 10_000;

    private final LoadingCache<Tenant, Optional<SigningSecrets>> cache;
    private final LoadingCache<EndpointKey, Optional<EndpointSecrets>> endpoints;

    private record EndpointKey(Tenant tenant, String endpointId) {}

    public SecretCache(Store store) {
        this(store, Ticker.systemTicker(), MAX_TENANTS);
    }

    SecretCache(Store store, Ticker ticker, long maxTenants) {
        this.cache = Caffeine.newBuilder()
                .maximumSize(maxTenants)
                .expireAfterWrite(TTL)
                .ticker(ticker)
                .executor(Runnable::run) // evictions on the caller's thread: no pool of its own
                .build(tenant -> store.inTransaction(tx -> tx.signingSecrets().find(tenant)));
        this.endpoints = Caffeine.newBuilder()
                .maximumSize(maxTenants)
                .expireAfterWrite(TTL)
                .ticker(ticker)
                .executor(Runnable::run)
                .build(k -> store.inTransaction(tx -> tx.endpoints().secrets(k.tenant(), k.endpointId())));
    }

    public Optional<SigningSecrets> get(Tenant tenant) {
        return cache.get(tenant);
    }

    /**
     * What signs delivery {@code d}, as the secrets active at an instant: its endpoint's own secrets for a message's
     * delivery, else its tenant's. Empty when there are none.
     */
    public Optional<Function<Instant, List<SigningSecret>>> forDelivery(Delivery d) {
        if (d.ofMessage())
            return endpoints.get(new EndpointKey(d.tenant(), d.endpointId())).map(s -> s::activeAt);
        return get(d.tenant()).map(s -> s::activeAt);
    }

    /** Tenants whose opened secrets are held now. */
    long size() {
        cache.cleanUp();
        return cache.estimatedSize();
    }
}

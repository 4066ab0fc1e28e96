package dev.idem.engine.internal;

import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.LoadingCache;
import com.github.benmanes.caffeine.cache.Ticker;
import dev.idem.core.SigningSecrets;
import dev.idem.core.Tenant;
import dev.idem.core.store.Store;
import java.time.Duration;
import java.util.Optional;

/**
 * Signing secrets per tenant, opened (decrypted) at most once a second: one store read and one decryption per tenant per
 * second instead of one per delivery, while a rotation reaches the wire within a second. The opened secrets live in
 * memory no longer than that and for at most {@link #MAX_TENANTS} tenants (Caffeine evicts the rest), so a node that
 * signs for many tenants does not hold every tenant's secret for long.
 */
public final class SecretCache {
    /** How long opened secrets are kept. */
    static final Duration TTL = Duration.ofSeconds(1);

    /** How many tenants' secrets are kept at most. */
    static final long MAX_TENANTS = 10_000;

    private final LoadingCache<Tenant, Optional<SigningSecrets>> cache;

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
    }

    public Optional<SigningSecrets> get(Tenant tenant) {
        return cache.get(tenant);
    }

    /** Tenants whose opened secrets are held now. */
    long size() {
        cache.cleanUp();
        return cache.estimatedSize();
    }
}

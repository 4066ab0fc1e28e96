package dev.idem.server.internal;

import dev.idem.core.ApiKey;
import dev.idem.core.Tenant;
import dev.idem.core.store.Store;
import io.javalin.http.Context;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Resolves {@code Authorization: Bearer sk_…} to a tenant. Lookups are cached for a few seconds
 * per hash; revocation is checked against the store on every cache miss and the cache is short.
 */
public final class Authenticator {
    private static final String ATTR = "idem.tenant";
    private static final Duration CACHE_TTL = Duration.ofSeconds(2);
    private final Store store;
    private final Clock clock;
    private final ConcurrentHashMap<String, Cached> cache = new ConcurrentHashMap<>();

    private record Cached(Optional<ApiKey> key, long expiresAtMillis) {}

    public Authenticator(Store store, Clock clock) {
        this.store = store;
        this.clock = clock;
    }

    public void authenticate(Context ctx) {
        String header = ctx.header("Authorization");
        if (header == null || header.isBlank())
            throw ApiException.unauthenticated("missing_api_key", "No API key given: send 'Authorization: Bearer sk_test_…'");
        if (!header.regionMatches(true, 0, "Bearer ", 0, 7))
            throw ApiException.unauthenticated("invalid_authorization", "Authorization must be 'Bearer <api key>'");
        String secret = header.substring(7).trim();
        ApiKey key = lookup(ApiKeys.hash(secret)).filter(ApiKey::active)
                .orElseThrow(() -> ApiException.unauthenticated("invalid_api_key", "Invalid API key"));
        ctx.attribute(ATTR, key.tenant());
    }

    /** Forgets cached lookups, e.g. after a revocation on this node. */
    public void invalidate() {
        cache.clear();
    }

    private Optional<ApiKey> lookup(String hash) {
        long now = clock.millis();
        Cached c = cache.get(hash);
        if (c != null && c.expiresAtMillis > now) return c.key;
        Optional<ApiKey> key = store.inTransaction(tx -> tx.apiKeys().findByHash(hash));
        if (cache.size() > 10_000) cache.clear();
        cache.put(hash, new Cached(key, now + CACHE_TTL.toMillis()));
        return key;
    }

    public static Tenant tenant(Context ctx) {
        Tenant t = ctx.attribute(ATTR);
        if (t == null) throw new IllegalStateException("route reached without authentication");
        return t;
    }
}

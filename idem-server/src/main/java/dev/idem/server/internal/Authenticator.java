package dev.idem.server.internal;

import dev.idem.core.ApiKey;
import dev.idem.core.Tenant;
import dev.idem.core.store.Store;
import io.javalin.http.Context;

/**
 * Resolves {@code Authorization: Bearer sk_…} to a tenant by the key's SHA-256, on every request (one
 * primary-key read), so a revoked key stops working at once on every node. Then applies the key's rate limit.
 */
public final class Authenticator {
    private static final String ATTR = "idem.tenant";
    private final Store store;
    private final RateLimiter limiter;

    public Authenticator(Store store, RateLimiter limiter) {
        this.store = store;
        this.limiter = limiter;
    }

    public void authenticate(Context ctx) {
        String header = ctx.header("Authorization");
        if (header == null || header.isBlank())
            throw ApiException.unauthenticated("missing_api_key", "No API key given: send 'Authorization: Bearer sk_test_…'");
        if (!header.regionMatches(true, 0, "Bearer ", 0, 7))
            throw ApiException.unauthenticated("invalid_authorization", "Authorization must be 'Bearer <api key>'");
        String hash = ApiKeys.hash(header.substring(7).trim());
        ApiKey key = store.inReadTransaction(tx -> tx.apiKeys().findByHash(hash)).filter(ApiKey::active)
                .orElseThrow(() -> ApiException.unauthenticated("invalid_api_key", "Invalid API key"));
        limiter.acquire(key.id());
        ctx.attribute(ATTR, key.tenant());
    }

    public static Tenant tenant(Context ctx) {
        Tenant t = ctx.attribute(ATTR);
        if (t == null) throw new IllegalStateException("route reached without authentication");
        return t;
    }
}

package dev.idem.server.internal;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import dev.idem.core.ApiKey;
import dev.idem.core.Tenant;
import dev.idem.core.store.Store;
import io.javalin.http.Context;
import java.time.Clock;
import java.time.Duration;

/**
 * Resolves {@code Authorization: Bearer sk_…} (or a portal session's {@code ps_…}, narrowed by {@link PortalGuard}) to a tenant by the key's SHA-256, then applies the key's rate limit.
 * A key found active is remembered for {@link #CACHE_TTL} (Caffeine, bounded): revoking a key takes effect on every
 * node within that time, and a node under load stops paying a read transaction per request for it (measured in
 * docs/api.md, "Keys, tenancy, rate limits"). Unknown and revoked keys are never cached: a key just created works
 * at once, and a refused one is looked up again on every request.
 */
public final class Authenticator {
    /** How long a key found active is trusted without reading it again: the bound on revocation taking effect. */
    public static final Duration CACHE_TTL = Duration.ofSeconds(5);

    private static final String ATTR = "idem.tenant";
    private final Store store;
    private final RateLimiter limiter;
    private final Cache<String, ApiKey> active;
    private final PortalAuth portal;

    /** @param clock the cache's time (a test that moves it sees a revocation take effect) */
    public Authenticator(Store store, RateLimiter limiter, Clock clock) {
        this.store = store;
        this.limiter = limiter;
        this.portal = new PortalAuth(store, clock);
        Ticker ticker = () -> clock.millis() * 1_000_000L;
        this.active = Caffeine.newBuilder()
                .expireAfterWrite(CACHE_TTL)
                .maximumSize(100_000)
                .ticker(ticker)
                .build();
    }

    public void authenticate(Context ctx) {
        String header = ctx.header("Authorization");
        if (header == null || header.isBlank())
            throw ApiException.unauthenticated(
                    "missing_api_key", "No API key given: send 'Authorization: Bearer sk_test_…'");
        if (!header.regionMatches(true, 0, "Bearer ", 0, 7))
            throw ApiException.unauthenticated("invalid_authorization", "Authorization must be 'Bearer <api key>'");
        String token = header.substring(7).trim();
        if (PortalTokens.isPortalToken(token)) {
            // one path for both: a portal session is a key narrowed to one application and its capabilities
            PortalScope scope = portal.authenticate(ctx, token);
            limiter.acquire(scope.access().id());
            ctx.attribute(ATTR, scope.access().tenant());
            scope.attach(ctx);
            PortalGuard.check(ctx, scope, store);
            return;
        }
        String hash = ApiKeys.hash(token);
        ApiKey key = active.getIfPresent(hash);
        if (key == null) {
            key = store.inReadTransaction(tx -> tx.apiKeys().findByHash(hash))
                    .filter(ApiKey::active)
                    .orElseThrow(() -> ApiException.unauthenticated("invalid_api_key", "Invalid API key"));
            active.put(hash, key);
        }
        limiter.acquire(key.id());
        ctx.attribute(ATTR, key.tenant());
    }

    public static Tenant tenant(Context ctx) {
        Tenant t = ctx.attribute(ATTR);
        if (t == null) throw new IllegalStateException("route reached without authentication");
        return t;
    }
}

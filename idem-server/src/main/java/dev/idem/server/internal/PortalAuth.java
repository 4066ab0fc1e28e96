package dev.idem.server.internal;

import dev.idem.core.portal.PortalAccess;
import dev.idem.core.portal.PortalSession;
import dev.idem.core.store.Store;
import io.javalin.http.Context;
import java.time.Clock;
import java.time.Instant;

/**
 * Resolves a portal token to the scope it reaches, for {@link Authenticator}: a link's {@code pt_} token only where it
 * is exchanged for a session ({@link #EXCHANGE_PATH}), a session's {@code ps_} token everywhere a portal may go
 * ({@link PortalGuard}). Nothing is cached: a revoked link or an expired session is refused on the very next request.
 */
final class PortalAuth {
    static final String EXCHANGE_PATH = "/v1/portal/sessions";
    private final Store store;
    private final Clock clock;

    PortalAuth(Store store, Clock clock) {
        this.store = store;
        this.clock = clock;
    }

    PortalScope authenticate(Context ctx, String token) {
        String hash = ApiKeys.hash(token);
        Instant now = clock.instant();
        if (token.startsWith(PortalTokens.LINK_PREFIX)) {
            if (!ctx.path().equals(EXCHANGE_PATH) || !ctx.method().name().equals("POST"))
                throw ApiException.unauthenticated(
                        "portal_link_token",
                        "A portal link's token only opens a session (POST " + EXCHANGE_PATH
                                + "); send the session's token");
            PortalAccess access = store.inReadTransaction(tx -> tx.portal().findAccessByHash(hash))
                    .orElseThrow(PortalAuth::unknown);
            check(access, now);
            return new PortalScope(access, null);
        }
        return store.inReadTransaction(tx -> {
            PortalSession session = tx.portal().findSessionByHash(hash).orElseThrow(PortalAuth::unknown);
            PortalAccess access = tx.portal().findAccess(session.accessId()).orElseThrow(PortalAuth::unknown);
            check(access, now);
            if (!session.activeAt(now))
                throw ApiException.unauthenticated(
                        "portal_session_expired", "This portal session has expired: open the portal link again");
            return new PortalScope(access, session);
        });
    }

    private static void check(PortalAccess access, Instant now) {
        if (access.revokedAt() != null)
            throw ApiException.unauthenticated("portal_access_revoked", "This portal link has been revoked");
        if (!access.activeAt(now))
            throw ApiException.unauthenticated("portal_access_expired", "This portal link has expired");
    }

    private static ApiException unknown() {
        return ApiException.unauthenticated("invalid_portal_token", "Invalid portal token");
    }
}

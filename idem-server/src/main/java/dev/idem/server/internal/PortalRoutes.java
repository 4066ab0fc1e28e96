package dev.idem.server.internal;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.net.URI;

/**
 * The portal's API routes (docs/portal.md): minting and revoking links for an application, the page's exchange of a
 * link's token for a session, the session's own description, sending an endpoint a test event, and the audit log of what portal sessions changed.
 * Registered by one line in {@link HttpApi}.
 */
final class PortalRoutes {
    static final String ACCESS_PATH = "/v1/applications/{id}/portal-access";
    static final String TEST_PATH = "/v1/endpoints/{id}/send-test";

    private PortalRoutes() {}

    static void install(RoutesConfig r, HttpApi.Services s) {
        PortalAccessService access =
                new PortalAccessService(s.store(), s.ids(), s.clock(), new java.security.SecureRandom());
        r.post(ACCESS_PATH, ctx -> {
            HttpApi.checkSize(ctx);
            // every field has a default: no body at all asks for the defaults
            PortalAccessService.Request request =
                    PortalAccessService.parse(ctx.bodyAsBytes().length == 0 ? Json.object() : HttpApi.body(ctx));
            answer(ctx, access.create(Authenticator.tenant(ctx), ctx.pathParam("id"), request, publicBase(ctx)));
        });
        r.delete(ACCESS_PATH, ctx -> {
            HttpApi.checkSize(ctx);
            String session = ctx.queryParam("session");
            dev.idem.core.Tenant tenant = Authenticator.tenant(ctx);
            s.idempotency()
                    .run(
                            ctx,
                            tenant,
                            tx -> access.revoke(
                                    tx,
                                    tenant,
                                    ctx.pathParam("id"),
                                    session == null || session.isEmpty() ? null : session));
        });
        TestEventService tests = new TestEventService(s.ids(), s.clock());
        r.post(TEST_PATH, ctx -> {
            HttpApi.checkSize(ctx);
            var body = HttpApi.body(ctx);
            dev.idem.core.Tenant tenant = Authenticator.tenant(ctx);
            s.tracing().inSpan("send test event", () -> {
                // the test's attempt continues this request's trace, as a message's does
                var trace = s.tracing().creatorContext(ctx);
                s.idempotency().run(ctx, tenant, tx -> tests.send(tx, tenant, ctx.pathParam("id"), body, trace));
                return null;
            });
        });
        PortalPage.install(r, s.store());
        r.post(PortalAuth.EXCHANGE_PATH, ctx -> answer(ctx, access.exchange(linkScope(ctx))));
        r.get("/v1/portal/session", ctx -> HttpApi.json(ctx, 200, access.session(sessionScope(ctx))));
        r.get("/v1/audit-log", ctx -> {
            String application = ctx.queryParam("application");
            HttpApi.json(
                    ctx,
                    200,
                    PortalAudit.list(
                            s.store(),
                            Authenticator.tenant(ctx),
                            application == null || application.isEmpty() ? null : application,
                            Pagination.limit(ctx),
                            Pagination.startingAfter(ctx)));
        });
    }

    /** The link whose token authenticated this request; an API key or a session cannot open a session. */
    private static PortalScope linkScope(Context ctx) {
        return PortalScope.of(ctx)
                .filter(p -> p.session() == null)
                .orElseThrow(() -> ApiException.unauthenticated(
                        "portal_link_token_required",
                        "Open a portal session with the portal link's token (Authorization: Bearer pt_…)"));
    }

    private static PortalScope sessionScope(Context ctx) {
        return PortalScope.of(ctx)
                .filter(p -> p.session() != null)
                .orElseThrow(() -> ApiException.invalid(
                        "portal_session_required", null, "Only a portal session has a portal session to describe"));
    }

    /** Where the caller reached this node, so the link it hands on reaches it too ({@code https://idem.example.com}). */
    static String publicBase(Context ctx) {
        URI u = URI.create(ctx.url());
        return u.getScheme() + "://" + u.getRawAuthority();
    }

    private static void answer(Context ctx, ApiResponse r) {
        r.headers().forEach(ctx::header);
        HttpApi.json(ctx, r.status(), r.body());
    }
}

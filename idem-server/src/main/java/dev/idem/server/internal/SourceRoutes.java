package dev.idem.server.internal;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;

/**
 * The routes of inbound sources (docs/sources.md): {@code /v1/sources} (API key, request idempotency like every
 * mutation) and the public ingest route {@code POST /in/{source_id}} (no API key: the provider's signature is the
 * credential). Registered by one line in {@link HttpApi}.
 */
final class SourceRoutes {
    private SourceRoutes() {}

    static void install(RoutesConfig r, HttpApi.Services s) {
        SourceIngest ingest = new SourceIngest(s.store(), s.ids(), s.clock());
        SourceService sources = new SourceService(
                s.store(), s.ids(), s.clock(), new SourceFields(s.schedules().parser()), ingest);

        r.post("/v1/sources", ctx -> {
            checkSize(ctx);
            var body = HttpApi.body(ctx);
            s.idempotency()
                    .run(
                            ctx,
                            Authenticator.tenant(ctx),
                            tx -> sources.create(tx, Authenticator.tenant(ctx), body, baseUrl(ctx)));
        });
        r.get(
                "/v1/sources",
                ctx -> HttpApi.json(
                        ctx,
                        200,
                        sources.list(
                                Authenticator.tenant(ctx),
                                Pagination.limit(ctx),
                                Pagination.startingAfter(ctx),
                                baseUrl(ctx))));
        r.get(
                "/v1/sources/{id}",
                ctx -> HttpApi.json(
                        ctx, 200, sources.get(Authenticator.tenant(ctx), ctx.pathParam("id"), baseUrl(ctx))));
        r.patch("/v1/sources/{id}", ctx -> {
            checkSize(ctx);
            var body = HttpApi.body(ctx);
            s.idempotency()
                    .run(
                            ctx,
                            Authenticator.tenant(ctx),
                            tx -> sources.patch(
                                    tx, Authenticator.tenant(ctx), ctx.pathParam("id"), body, baseUrl(ctx)));
        });
        r.delete("/v1/sources/{id}", ctx -> {
            checkSize(ctx);
            s.idempotency()
                    .run(
                            ctx,
                            Authenticator.tenant(ctx),
                            tx -> sources.delete(tx, Authenticator.tenant(ctx), ctx.pathParam("id"), baseUrl(ctx)));
        });

        r.post("/in/{source_id}", ctx -> {
            // declared over the limit: refused unread (the HTTP layer buffered none of it)
            if (ctx.req().getContentLengthLong() > SourceIngest.MAX_BODY_BYTES)
                throw BodyLimits.ingestTooLarge(ctx.req().getContentLengthLong());
            String sourceId = ctx.pathParam("source_id");
            SourceIngest.Answer a = s.tracing().inSpan("ingest", () -> {
                s.tracing().attribute(ServerTracing.SOURCE_ID, sourceId);
                return ingest.ingest(
                        sourceId,
                        SourceIngest.headersOf(ctx),
                        ctx.contentType(),
                        ctx.bodyAsBytes(),
                        s.tracing().creatorContext(ctx));
            });
            HttpApi.json(ctx, a.status(), a.body());
        });
    }

    private static void checkSize(Context ctx) {
        if (ctx.bodyAsBytes().length > HttpApi.MAX_BODY_BYTES)
            throw ApiException.invalid("body_too_large", null, "Request body is over 256 KiB");
    }

    /** Where this node was reached, for the source's {@code ingest_url} (behind a proxy: its Host and scheme headers). */
    private static String baseUrl(Context ctx) {
        String proto = ctx.header("X-Forwarded-Proto");
        String host = ctx.header("X-Forwarded-Host");
        return (proto != null ? proto : ctx.scheme()) + "://" + (host != null ? host : ctx.host());
    }
}

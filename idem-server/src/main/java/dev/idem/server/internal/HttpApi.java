package dev.idem.server.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.IdGenerator;
import dev.idem.core.ScheduleStatus;
import dev.idem.core.store.Store;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/** Routes of the HTTP API (docs/api.md) on Javalin. */
public final class HttpApi {
    static final int MAX_BODY_BYTES = 256 * 1024;
    private static final String PREVIEW_PATH = "/v1/recurrence/preview";

    /** What the routes need. */
    public record Services(
            Store store,
            IdGenerator ids,
            java.time.Clock clock,
            Authenticator auth,
            RequestIdempotency idempotency,
            ScheduleService schedules,
            DeliveryService deliveries,
            SigningSecretService secrets,
            PreviewService preview,
            PrometheusMeterRegistry metrics,
            ServerTracing tracing) {}

    private HttpApi() {}

    public static Javalin create(Services s, dev.idem.server.HttpTimeouts timeouts) {
        ReadinessProbe readiness = new ReadinessProbe(s.store());
        return Javalin.create(config -> {
            config.events.serverStarting(readiness::start);
            config.events.serverStopping(readiness::close);
            config.events.serverStartFailed(readiness::close);
            config.startup.showJavalinBanner = false;
            // larger than our limits (a batch's is the largest) so an
            // oversized body reaches us and gets the API's own 400
            config.http.maxRequestSize = 4L * ScheduleBatch.MAX_BODY_BYTES;
            // innermost of the handlers in front of Javalin's: a request holds no admission while its body arrives
            config.jetty.modifyServer(ApiAdmission::install);
            // every body Javalin would read is read before a request thread is
            // taken (a larger one is refused by its length)
            SlowClients.install(config, timeouts, config.http.maxRequestSize);
            config.http.defaultContentType = "application/json";
            config.jetty.modifyServer(server -> {
                server.setStopTimeout(5_000);
                server.setErrorHandler(new JsonErrorHandler(s.ids()));
                // in front of the body loader and the admission bound: the probes never wait for a thread behind the
                // API
                server.insertHandler(new ProbeHandler(readiness, s.store().dialect(), s.ids()));
                Metrics.instrument(server, s.metrics());
            });
            ErrorMapper.install(config);
            var r = config.routes;
            r.before(ctx -> {
                s.tracing().begin(ctx);
                RequestIds.assign(ctx, s.ids());
                checkQueryString(ctx.queryString());
            });
            r.before("/v1/*", ctx -> {
                if (!ctx.path().equals(PREVIEW_PATH)) s.auth().authenticate(ctx);
            });

            r.get("/healthz", ctx -> json(ctx, 200, Json.object().put("status", "ok")));
            // answered by ProbeHandler in front of Javalin; these routes serve the same paths with a query string
            r.get("/readyz", ctx -> {
                boolean up = readiness.ready();
                ctx.status(up ? 200 : 503)
                        .contentType("application/json")
                        .result(ProbeHandler.readyBody(up, s.store().dialect()));
            });
            r.get("/openapi.json", ctx -> ctx.contentType("application/json").result(OpenApi.document()));
            r.get(
                    "/metrics",
                    ctx -> ctx.contentType("text/plain; version=0.0.4; charset=utf-8")
                            .result(s.metrics().scrape()));
            r.get("/", Dashboard.file("index.html", "text/html; charset=utf-8"));
            for (String script : Dashboard.SCRIPTS)
                r.get("/" + script, Dashboard.file(script, "text/javascript; charset=utf-8"));
            r.get("/dashboard.css", Dashboard.file("dashboard.css", "text/css; charset=utf-8"));
            r.get("/favicon.svg", Dashboard.file("favicon.svg", "image/svg+xml"));

            r.post("/v1/schedules", ctx -> {
                checkSize(ctx);
                java.time.Instant now = s.clock().instant();
                ScheduleParser.Parsed parsed = s.schedules().parse(body(ctx), now);
                s.tracing().inSpan("create schedule", () -> {
                    var trace = s.tracing().creatorContext(ctx);
                    s.idempotency()
                            .runGrouped(
                                    ctx,
                                    Authenticator.tenant(ctx),
                                    tx -> s.schedules().create(tx, Authenticator.tenant(ctx), parsed, now, trace));
                    return null;
                });
            });
            r.post("/v1/schedules/batch", ctx -> {
                if (ctx.bodyAsBytes().length > ScheduleBatch.MAX_BODY_BYTES)
                    throw ApiException.invalid("body_too_large", null, "A batch request body is over 4 MiB");
                java.time.Instant now = s.clock().instant();
                java.util.List<ScheduleBatch.Item> items = ScheduleBatch.parse(s.schedules(), body(ctx), now);
                s.tracing().inSpan("create schedules", () -> {
                    var trace = s.tracing().creatorContext(ctx);
                    s.idempotency()
                            .runGrouped(
                                    ctx,
                                    Authenticator.tenant(ctx),
                                    tx -> ScheduleBatch.create(
                                            tx,
                                            s.schedules(),
                                            Authenticator.tenant(ctx),
                                            items,
                                            now,
                                            RequestIds.of(ctx),
                                            trace));
                    return null;
                });
            });
            r.get(
                    "/v1/schedules",
                    ctx -> json(
                            ctx,
                            200,
                            s.schedules()
                                    .list(
                                            Authenticator.tenant(ctx),
                                            enumParam(ctx, "status", ScheduleStatus::parse),
                                            Pagination.limit(ctx),
                                            Pagination.startingAfter(ctx))));
            r.get(
                    "/v1/schedules/{id}",
                    ctx -> json(ctx, 200, s.schedules().get(Authenticator.tenant(ctx), ctx.pathParam("id"))));
            r.patch("/v1/schedules/{id}", ctx -> {
                checkSize(ctx);
                java.time.Instant now = s.clock().instant();
                ObjectNode patch = body(ctx);
                s.idempotency()
                        .run(
                                ctx,
                                Authenticator.tenant(ctx),
                                tx -> s.schedules()
                                        .patch(tx, Authenticator.tenant(ctx), ctx.pathParam("id"), patch, now));
            });
            r.delete(
                    "/v1/schedules/{id}",
                    mutation(s, (tx, ctx) -> s.schedules().delete(tx, Authenticator.tenant(ctx), ctx.pathParam("id"))));
            r.post(
                    "/v1/schedules/{id}/pause",
                    mutation(s, (tx, ctx) -> s.schedules().pause(tx, Authenticator.tenant(ctx), ctx.pathParam("id"))));
            r.post(
                    "/v1/schedules/{id}/resume",
                    mutation(s, (tx, ctx) -> s.schedules().resume(tx, Authenticator.tenant(ctx), ctx.pathParam("id"))));

            r.get("/v1/deliveries", ctx -> {
                String endpointId = emptyAsNull(ctx.queryParam("endpoint_id"));
                String application = emptyAsNull(ctx.queryParam("application"));
                String scheduleOrSource = emptyAsNull(ctx.queryParam("schedule_id")) != null
                        ? ctx.queryParam("schedule_id")
                        : emptyAsNull(ctx.queryParam("source_id"));
                var filter = ListFilters.parse(
                        ctx.queryParam("event_type"), ctx.queryParam("since"), ctx.queryParam("until"));
                json(
                        ctx,
                        200,
                        endpointId != null || application != null
                                ? s.deliveries()
                                        .listByEndpoint(
                                                Authenticator.tenant(ctx),
                                                endpointId,
                                                application,
                                                scheduleOrSource,
                                                enumParam(ctx, "status", DeliveryStatus::parse),
                                                filter,
                                                Pagination.limit(ctx),
                                                Pagination.startingAfter(ctx))
                                : s.deliveries()
                                        .list(
                                                Authenticator.tenant(ctx),
                                                ctx.queryParam("schedule_id"),
                                                ctx.queryParam("source_id"),
                                                enumParam(ctx, "status", DeliveryStatus::parse),
                                                filter,
                                                Pagination.limit(ctx),
                                                Pagination.startingAfter(ctx)));
            });
            r.get(
                    "/v1/deliveries/{id}",
                    ctx -> json(ctx, 200, s.deliveries().get(Authenticator.tenant(ctx), ctx.pathParam("id"))));
            r.get("/v1/stats", ctx -> json(ctx, 200, s.deliveries().stats(Authenticator.tenant(ctx))));
            r.post("/v1/deliveries/replay", BulkReplay.handler(s.store(), s.idempotency(), s.clock(), s.tracing()));
            r.post("/v1/deliveries/{id}/replay", ctx -> {
                checkSize(ctx);
                s.tracing().inSpan("replay delivery", () -> {
                    // read on the request's thread: the replayed attempt links to this span
                    var request = s.tracing().linkContext();
                    s.idempotency()
                            .run(
                                    ctx,
                                    Authenticator.tenant(ctx),
                                    tx -> s.deliveries()
                                            .replay(tx, Authenticator.tenant(ctx), ctx.pathParam("id"), request));
                    return null;
                });
            });

            r.get(PREVIEW_PATH, ctx -> {
                java.util.Map<String, String> params = new java.util.HashMap<>();
                ctx.queryParamMap().forEach((k, v) -> params.put(k, v.isEmpty() ? null : v.get(0)));
                json(ctx, 200, s.preview().preview(params));
            });
            r.get("/v1/signing-secret", ctx -> json(ctx, 200, s.secrets().get(Authenticator.tenant(ctx))));
            r.post(
                    "/v1/signing-secret/rotate",
                    mutation(s, (tx, ctx) -> s.secrets().rotate(tx, Authenticator.tenant(ctx))));
            SourceRoutes.install(r, s);
            SettingsRoutes.install(r, s);
            FanoutRoutes.install(r, s);
            PortalRoutes.install(r, s);
            r.after(s.tracing()::end);
        });
    }

    /** What needs the started server: connection metrics on its connectors. */
    public static void afterStart(Javalin http, PrometheusMeterRegistry metrics) {
        Metrics.instrumentConnectors(http.jettyServer().server(), metrics);
    }

    /** A mutation's body of work: runs inside the transaction that also stores its response for replay. */
    interface Mutation {
        ApiResponse apply(dev.idem.core.store.StoreTx tx, Context ctx);
    }

    /** A POST/PATCH/DELETE route: size limit first, then the work under request idempotency. */
    private static Handler mutation(Services s, Mutation m) {
        return ctx -> {
            checkSize(ctx);
            s.idempotency().run(ctx, Authenticator.tenant(ctx), tx -> m.apply(tx, ctx));
        };
    }

    /** A parameter whose value cannot be decoded, or holds text no store keeps, is bad input, not an absent parameter. */
    private static void checkQueryString(String query) {
        if (query == null) return;
        for (String part : query.split("&")) {
            String name = part.contains("=") ? part.substring(0, part.indexOf('=')) : part;
            String decoded;
            try {
                decoded = java.net.URLDecoder.decode(part, java.nio.charset.StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                throw ApiException.invalid(
                        "parameter_invalid_encoding",
                        name,
                        "Query parameter '" + name + "' is not valid percent-encoding");
            }
            StorableText.check(decoded, decoded.contains("=") ? decoded.substring(0, decoded.indexOf('=')) : decoded);
        }
    }

    static void checkSize(Context ctx) {
        if (ctx.bodyAsBytes().length > MAX_BODY_BYTES)
            throw ApiException.invalid("body_too_large", null, "Request body is over 256 KiB");
    }

    static ObjectNode body(Context ctx) {
        return JsonBody.parse(ctx.bodyAsBytes());
    }

    static void json(Context ctx, int status, JsonNode body) {
        ctx.status(status).contentType("application/json").result(Json.bytes(body));
    }

    private static <E> E enumParam(Context ctx, String name, java.util.function.Function<String, E> parse) {
        String v = ctx.queryParam(name);
        if (v == null || v.isEmpty()) return null;
        try {
            return parse.apply(v);
        } catch (IllegalArgumentException e) {
            throw ApiException.invalid("parameter_invalid", name, e.getMessage());
        }
    }

    private static String emptyAsNull(String v) {
        return v == null || v.isEmpty() ? null : v;
    }
}

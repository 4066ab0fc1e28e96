package dev.idem.server.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import java.util.Set;

/**
 * The routes of sending webhooks to customers: {@code /v1/applications}, {@code /v1/endpoints},
 * {@code /v1/event-types}, {@code POST /v1/filters/test} (docs/endpoints.md) and {@code /v1/messages}
 * (docs/sending-webhooks.md). Every mutation runs under request
 * idempotency. Registered by one line in {@link HttpApi}.
 */
final class FanoutRoutes {
    private FanoutRoutes() {}

    static void install(RoutesConfig r, HttpApi.Services s) {
        ApplicationService apps = new ApplicationService(s.store(), s.ids(), s.clock());
        // secrets are keys: drawn from the platform's strong source, whatever the node's other randomness
        EndpointSecretService secrets =
                new EndpointSecretService(s.store(), s.clock(), new java.security.SecureRandom());
        EndpointService endpoints =
                new EndpointService(s.store(), s.ids(), s.clock(), s.schedules().parser(), secrets);
        EventTypeService types = new EventTypeService(s.store(), s.clock());

        crud(r, s, "/v1/applications", "id", apps);
        crud(r, s, "/v1/endpoints", "id", endpoints);
        crud(r, s, "/v1/event-types", "name", types);
        r.get(
                "/v1/endpoints/{id}/secret",
                ctx -> HttpApi.json(ctx, 200, secrets.get(tenant(ctx), ctx.pathParam("id"))));
        r.post(
                "/v1/endpoints/{id}/secret/rotate",
                mutation(s, (tx, ctx, body) -> secrets.rotate(tx, tenant(ctx), ctx.pathParam("id"), body)));
        r.post("/v1/filters/test", mutation(s, (tx, ctx, body) -> ApiResponse.ok(filterTest(body))));

        MessageService messages = new MessageService(s.store(), s.ids(), s.clock());
        r.post("/v1/messages", ctx -> {
            HttpApi.checkSize(ctx);
            // checked and parsed on the request's thread: the group's writer thread is one for all requests
            MessageService.Parsed parsed;
            ApiException refused;
            try {
                parsed = MessageService.parse(HttpApi.body(ctx));
                refused = null;
            } catch (ApiException e) {
                // with an Idempotency-Key, the key answers first (a replay, a reuse, a key in progress), as on every
                // mutation; without one, the 400 is all there is to say
                if (ctx.header(RequestIdempotency.HEADER) == null) throw e;
                parsed = null;
                refused = e;
            }
            MessageService.Parsed message = parsed;
            ApiException refusal = refused;
            // many small sends share transactions; a send the work refuses rolls its group back, whose requests then
            // run one by one, so it fails alone
            s.tracing().inSpan("send message", () -> {
                // read on the request's thread: the group's writer runs the work on its own
                var trace = s.tracing().creatorContext(ctx);
                var tenant = tenant(ctx);
                s.idempotency().runGrouped(ctx, tenant, tx -> {
                    if (refusal != null) throw refusal;
                    return messages.send(tx, tenant, message, trace);
                });
                return null;
            });
        });
        r.get(
                "/v1/messages",
                ctx -> HttpApi.json(
                        ctx,
                        200,
                        messages.list(
                                tenant(ctx),
                                emptyAsNull(ctx.queryParam("event_type")),
                                emptyAsNull(ctx.queryParam("application")),
                                emptyAsNull(ctx.queryParam("since")),
                                emptyAsNull(ctx.queryParam("until")),
                                emptyAsNull(ctx.queryParam("delivery_status")),
                                Pagination.limit(ctx),
                                Pagination.startingAfter(ctx))));
        r.get("/v1/messages/{id}", ctx -> HttpApi.json(ctx, 200, messages.get(tenant(ctx), ctx.pathParam("id"))));
    }

    /** The five routes of {@code resource} under {@code base}, the one-object routes keyed by path parameter {@code key}. */
    private static void crud(RoutesConfig r, HttpApi.Services s, String base, String key, CrudResource resource) {
        String one = base + "/{" + key + "}";
        r.post(base, mutation(s, (tx, ctx, body) -> resource.create(tx, tenant(ctx), body)));
        r.get(
                base,
                ctx -> HttpApi.json(
                        ctx,
                        200,
                        resource.list(
                                tenant(ctx),
                                Pagination.limit(ctx),
                                Pagination.startingAfter(ctx),
                                name -> emptyAsNull(ctx.queryParam(name)))));
        r.get(one, ctx -> HttpApi.json(ctx, 200, resource.get(tenant(ctx), ctx.pathParam(key))));
        r.patch(one, mutation(s, (tx, ctx, body) -> resource.patch(tx, tenant(ctx), ctx.pathParam(key), body)));
        r.delete(one, mutation(s, (tx, ctx, body) -> resource.delete(tx, tenant(ctx), ctx.pathParam(key))));
    }

    /** {@code {"filter", "payload"}} → {@code {"matches": bool}}: the filter as an endpoint would apply it. */
    static ObjectNode filterTest(ObjectNode body) {
        Fields f = Fields.of(body).only(Set.of("filter", "payload"));
        JsonNode filter = f.raw("filter");
        if (filter == null || filter.isNull())
            throw ApiException.invalid("parameter_missing", "filter", "Missing required parameter: filter");
        JsonNode payload = f.raw("payload");
        if (payload == null)
            throw ApiException.invalid("parameter_missing", "payload", "Missing required parameter: payload");
        boolean matches = FanoutFields.filter(filter, "filter").matches(tree(JsonBody.text(payload)));
        return Json.object().put("object", "filter_test").put("matches", matches);
    }

    private static JsonNode tree(String json) {
        try {
            return Json.MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a payload the body parser accepted did not parse again", e);
        }
    }

    /** A mutation's work, with its parsed body. */
    private interface Work {
        ApiResponse apply(dev.idem.core.store.StoreTx tx, Context ctx, ObjectNode body);
    }

    /** Size limit, the body parsed before any transaction (bad JSON changes nothing), then the work under idempotency. */
    private static Handler mutation(HttpApi.Services s, Work work) {
        return ctx -> {
            HttpApi.checkSize(ctx);
            ObjectNode body = HttpApi.body(ctx);
            s.idempotency().run(ctx, tenant(ctx), tx -> work.apply(tx, ctx, body));
        };
    }

    private static dev.idem.core.Tenant tenant(Context ctx) {
        return Authenticator.tenant(ctx);
    }

    private static String emptyAsNull(String v) {
        return v == null || v.isEmpty() ? null : v;
    }
}

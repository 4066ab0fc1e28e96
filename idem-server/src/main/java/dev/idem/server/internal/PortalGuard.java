package dev.idem.server.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.Tenant;
import dev.idem.core.fanout.Endpoint;
import dev.idem.core.portal.Capability;
import dev.idem.core.store.Store;
import dev.idem.core.store.StoreTx;
import io.javalin.http.Context;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/**
 * What a portal session may reach, checked before the route runs: the routes a portal uses, each with the capability
 * it needs (absent: refused, 403), and the application every object it names must belong to (another application's
 * object is a 404, exactly as another project's is for a key). The route then runs as it does for a key of the
 * tenant: there is one implementation of each operation, narrowed here.
 */
final class PortalGuard {
    /** How a route names the objects it touches. */
    enum Scope {
        /** Nothing of an application's (the event type catalogue, the filter test, the session itself). */
        NONE,
        /** Path segment 3 is the application (id or uid). */
        APPLICATION_PATH,
        /** Path segment 3 is an endpoint id. */
        ENDPOINT_PATH,
        /** Path segment 3 is a message id: the message must be sent to the application. */
        MESSAGE_PATH,
        /** Path segment 3 is a delivery id: the endpoint it goes to must be the application's. */
        DELIVERY_PATH,
        /** Query parameter {@code application} names it (a list). */
        APPLICATION_QUERY,
        /** Body field {@code application} names it (a create). */
        APPLICATION_BODY,
        /** Body field {@code endpoint_id} names an endpoint of the application (a bulk replay): required. */
        ENDPOINT_BODY
    }

    /**
     * One route a portal session may call.
     *
     * @param action what the audit log calls a change made by it; null for a read
     */
    record Rule(String method, String pattern, Capability capability, Scope scope, String action) {
        boolean matches(String m, String[] segments) {
            if (!method.equals(m)) return false;
            String[] p = pattern.split("/");
            if (p.length != segments.length) return false;
            for (int i = 0; i < p.length; i++) if (!p[i].startsWith("{") && !p[i].equals(segments[i])) return false;
            return true;
        }
    }

    static final List<Rule> RULES = List.of(
            new Rule("GET", "/v1/portal/session", null, Scope.NONE, null),
            new Rule("GET", "/v1/applications/{id}", Capability.VIEW, Scope.APPLICATION_PATH, null),
            new Rule("GET", "/v1/endpoints", Capability.VIEW, Scope.APPLICATION_QUERY, null),
            new Rule("POST", "/v1/endpoints", Capability.MANAGE_ENDPOINTS, Scope.APPLICATION_BODY, "endpoint.create"),
            new Rule("GET", "/v1/endpoints/{id}", Capability.VIEW, Scope.ENDPOINT_PATH, null),
            new Rule(
                    "PATCH", "/v1/endpoints/{id}", Capability.MANAGE_ENDPOINTS, Scope.ENDPOINT_PATH, "endpoint.update"),
            new Rule(
                    "DELETE",
                    "/v1/endpoints/{id}",
                    Capability.MANAGE_ENDPOINTS,
                    Scope.ENDPOINT_PATH,
                    "endpoint.delete"),
            new Rule("GET", "/v1/endpoints/{id}/secret", Capability.VIEW_SECRETS, Scope.ENDPOINT_PATH, null),
            new Rule(
                    "POST",
                    "/v1/endpoints/{id}/secret/rotate",
                    Capability.ROTATE_SECRETS,
                    Scope.ENDPOINT_PATH,
                    "endpoint.secret.rotate"),
            new Rule(
                    "POST",
                    "/v1/endpoints/{id}/send-test",
                    Capability.SEND_TEST,
                    Scope.ENDPOINT_PATH,
                    "endpoint.send_test"),
            new Rule("GET", "/v1/messages", Capability.VIEW, Scope.APPLICATION_QUERY, null),
            new Rule("GET", "/v1/messages/{id}", Capability.VIEW, Scope.MESSAGE_PATH, null),
            // with application (the session's own): endpoint_id narrows within it, schedule_id or source_id is a 400
            new Rule("GET", "/v1/deliveries", Capability.VIEW, Scope.APPLICATION_QUERY, null),
            new Rule("GET", "/v1/deliveries/{id}", Capability.VIEW, Scope.DELIVERY_PATH, null),
            new Rule("POST", "/v1/deliveries/{id}/replay", Capability.REPLAY, Scope.DELIVERY_PATH, "delivery.replay"),
            // an endpoint's dead deliveries (since a time): only with endpoint_id, one of the application's endpoints
            new Rule("POST", "/v1/deliveries/replay", Capability.REPLAY, Scope.ENDPOINT_BODY, "deliveries.replay"),
            new Rule("GET", "/v1/event-types", Capability.VIEW, Scope.NONE, null),
            new Rule("GET", "/v1/event-types/{name}", Capability.VIEW, Scope.NONE, null),
            new Rule("POST", "/v1/filters/test", Capability.VIEW, Scope.NONE, null));

    private static final String RULE_ATTR = "idem.portal.rule";

    private PortalGuard() {}

    /** Refuses what {@code scope} does not reach; the exchange of a link's token passes (it reaches nothing else). */
    static void check(Context ctx, PortalScope scope, Store store) {
        if (scope.session() == null) return;
        String[] segments = ctx.path().split("/");
        Rule rule = RULES.stream()
                .filter(r -> r.matches(ctx.method().name(), segments))
                .findFirst()
                .orElseThrow(() -> ApiException.forbidden(
                        "portal_route_forbidden",
                        "A portal session reaches only its application's endpoints, the event types, its messages"
                                + " and deliveries; not " + ctx.method().name() + " " + ctx.path()));
        if (rule.capability() != null && !scope.grants(rule.capability()))
            throw ApiException.forbidden(
                    "portal_capability_missing",
                    "This portal link does not grant '" + rule.capability().wireName() + "'");
        ctx.attribute(RULE_ATTR, rule);
        Tenant tenant = scope.access().tenant();
        switch (rule.scope()) {
            case NONE -> {}
            case APPLICATION_PATH -> {
                String reference = segment(segments, 3);
                store.inReadTransaction(tx -> ownApplication(tx, tenant, scope, reference))
                        .orElseThrow(() -> ApiException.notFound("application", reference));
            }
            case ENDPOINT_PATH -> {
                String id = segment(segments, 3);
                store.inReadTransaction(tx -> ownEndpoint(tx, tenant, scope, id));
            }
            case MESSAGE_PATH -> {
                String id = segment(segments, 3);
                store.inReadTransaction(tx -> tx.messages()
                                .find(tenant, id)
                                .filter(m -> scope.applicationId().equals(m.applicationId())))
                        .orElseThrow(() -> ApiException.notFound("message", id));
            }
            case DELIVERY_PATH -> {
                String id = segment(segments, 3);
                store.inReadTransaction(tx -> tx.deliveries()
                                .find(tenant, id)
                                .filter(d -> d.endpointId() != null)
                                .flatMap(d -> tx.endpoints().find(tenant, d.endpointId()))
                                .filter(e -> scope.applicationId().equals(e.applicationId())))
                        .orElseThrow(() -> ApiException.notFound("delivery", id));
            }
            case APPLICATION_QUERY -> {
                String given = ctx.queryParam("application");
                if (given == null || given.isEmpty())
                    throw ApiException.invalid(
                            "parameter_missing",
                            "application",
                            "A portal session lists one application's objects: give application="
                                    + scope.applicationId());
                store.inReadTransaction(tx -> ownApplication(tx, tenant, scope, given))
                        .orElseThrow(() -> ApiException.notFound("application", given));
            }
            case APPLICATION_BODY -> bodyApplication(ctx, tenant, scope, store, true);
            case ENDPOINT_BODY -> {
                String id = bodyEndpoint(ctx).orElse(null);
                if (id != null) {
                    store.inReadTransaction(tx -> ownEndpoint(tx, tenant, scope, id));
                    bodyApplication(ctx, tenant, scope, store, false);
                }
            }
        }
        if (rule.scope() == Scope.ENDPOINT_PATH && rule.method().equals("PATCH"))
            bodyApplication(ctx, tenant, scope, store, false);
    }

    /** The rule a portal session's request matched, for the audit log. */
    static Optional<Rule> matched(Context ctx) {
        return Optional.ofNullable(ctx.attribute(RULE_ATTR));
    }

    private static Optional<String> ownApplication(StoreTx tx, Tenant tenant, PortalScope scope, String reference) {
        return tx.applications()
                .find(tenant, reference)
                .map(a -> a.id())
                .filter(id -> id.equals(scope.applicationId()));
    }

    private static Endpoint ownEndpoint(StoreTx tx, Tenant tenant, PortalScope scope, String id) {
        return tx.endpoints()
                .find(tenant, id)
                .filter(e -> scope.applicationId().equals(e.applicationId()))
                .orElseThrow(() -> ApiException.notFound("endpoint", id));
    }

    /**
     * A body's {@code application} must be the session's own (given as id or uid); another is unknown, as another
     * project's is. A body that is not a JSON object is left to the route's own 400.
     */
    private static void bodyApplication(Context ctx, Tenant tenant, PortalScope scope, Store store, boolean required) {
        ObjectNode body;
        try {
            body = HttpApi.body(ctx);
        } catch (ApiException unreadable) {
            return;
        }
        JsonNode given = body.get("application");
        if (given == null && !required) return;
        if (given == null)
            throw ApiException.invalid(
                    "parameter_missing",
                    "application",
                    "A portal session creates endpoints of its application: give \"application\": \""
                            + scope.applicationId() + "\"");
        if (!given.isTextual())
            throw ApiException.invalid(
                    "parameter_invalid_type", "application", "application must be a string (an id or uid)");
        String reference = given.asText();
        if (store.inReadTransaction(tx -> ownApplication(tx, tenant, scope, reference))
                .isEmpty())
            throw ApiException.invalid(
                    "application_unknown", "application", "No application with id or uid '" + reference + "'");
    }

    /**
     * The body's {@code endpoint_id}, required; empty for a body that is not a JSON object, left to the route's 400.
     */
    static Optional<String> bodyEndpoint(Context ctx) {
        ObjectNode body;
        try {
            body = HttpApi.body(ctx);
        } catch (ApiException unreadable) {
            return Optional.empty();
        }
        JsonNode given = body.get("endpoint_id");
        if (given == null || !given.isTextual() || given.asText().isEmpty())
            throw ApiException.invalid(
                    "parameter_missing",
                    "endpoint_id",
                    "A portal session replays the dead deliveries of one of its application's endpoints: give "
                            + "\"endpoint_id\"");
        return Optional.of(given.asText());
    }

    private static String segment(String[] segments, int i) {
        try {
            return URLDecoder.decode(segments[i].replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException badEncoding) {
            throw ApiException.notFound("object", segments[i]);
        }
    }
}

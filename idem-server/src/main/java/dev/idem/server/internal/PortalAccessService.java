package dev.idem.server.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.IdGenerator;
import dev.idem.core.Tenant;
import dev.idem.core.fanout.Application;
import dev.idem.core.portal.Capability;
import dev.idem.core.portal.PortalAccess;
import dev.idem.core.portal.PortalSession;
import dev.idem.core.store.Store;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Set;
import java.util.random.RandomGenerator;

/**
 * Portal links: minted for one application ({@code POST /v1/applications/{id}/portal-access}), revoked one label or
 * all of an application ({@code DELETE}), exchanged by the page for a short session ({@code POST
 * /v1/portal/sessions}). A link's and a session's tokens are shown once and stored only as SHA-256; so neither of
 * those two answers is kept for request idempotency (it would keep the token), while a revocation is.
 */
final class PortalAccessService {
    static final Set<String> FIELDS = Set.of("expiry", "capabilities", "session");
    private final Store store;
    private final IdGenerator ids;
    private final Clock clock;
    private final RandomGenerator random;

    PortalAccessService(Store store, IdGenerator ids, Clock clock, RandomGenerator random) {
        this.store = store;
        this.ids = ids;
        this.clock = clock;
        this.random = random;
    }

    /** A checked request for a link, read before any transaction so bad input writes nothing. */
    record Request(Duration expiry, Set<Capability> capabilities, String session) {}

    static Request parse(ObjectNode body) {
        Fields f = Fields.of(body).only(FIELDS);
        Duration expiry = f.duration("expiry", PortalAccess.MIN_EXPIRY, PortalAccess.MAX_EXPIRY);
        String session = f.string("session", PortalAccess.MAX_SESSION_LENGTH);
        return new Request(
                expiry == null ? PortalAccess.MAX_EXPIRY : expiry, capabilities(f.raw("capabilities")), session);
    }

    private static Set<Capability> capabilities(JsonNode n) {
        if (n == null) return Capability.DEFAULTS;
        if (!n.isArray() || n.isEmpty())
            throw ApiException.invalid(
                    "parameter_invalid_type",
                    "capabilities",
                    "capabilities must be a non-empty array of names (" + Capability.names() + ")");
        Set<Capability> out = EnumSet.noneOf(Capability.class);
        for (int i = 0; i < n.size(); i++) {
            String param = "capabilities[" + i + "]";
            if (!n.get(i).isTextual())
                throw ApiException.invalid(
                        "parameter_invalid_type", param, param + " must be a string, one of " + Capability.names());
            try {
                out.add(Capability.parse(n.get(i).asText()));
            } catch (IllegalArgumentException unknown) {
                throw ApiException.invalid("parameter_invalid", param, param + ": " + unknown.getMessage());
            }
        }
        return out;
    }

    /** Mints a link to {@code application}; {@code publicBase} is where the node is reached ({@code https://host}). */
    ApiResponse create(Tenant tenant, String application, Request request, String publicBase) {
        String token = PortalTokens.issue(PortalTokens.LINK_PREFIX, random);
        Instant now = clock.instant();
        PortalAccess access = store.inTransaction(tx -> {
            Application app = ApplicationService.find(tx, tenant, application);
            if (app.deleted())
                throw ApiException.invalid(
                        "application_deleted", "id", "Application " + app.id() + " is deleted: it gets no portal");
            PortalAccess a = new PortalAccess(
                    ids.next("pa"),
                    tenant,
                    app.id(),
                    ApiKeys.hash(token),
                    request.capabilities(),
                    request.session(),
                    now,
                    now.plus(request.expiry()),
                    null);
            tx.portal().insertAccess(a);
            return a;
        });
        ObjectNode o = view(access);
        o.put("url", publicBase + "/portal#token=" + token);
        o.put("token", token);
        return new ApiResponse(201, o, java.util.Map.of("Cache-Control", "no-store"));
    }

    /** Revokes the application's links, only those labelled {@code session} when it is given. */
    ApiResponse revoke(dev.idem.core.store.StoreTx tx, Tenant tenant, String application, String session) {
        Application app = ApplicationService.find(tx, tenant, application);
        int revoked = tx.portal().revoke(tenant, app.id(), session, clock.instant());
        ObjectNode o = Json.object();
        o.put("object", "portal_access_revocation");
        o.put("revoked", revoked);
        return ApiResponse.ok(o);
    }

    /** Opens a session with the link {@code scope} was authenticated by. */
    ApiResponse exchange(PortalScope scope) {
        String token = PortalTokens.issue(PortalTokens.SESSION_PREFIX, random);
        Instant now = clock.instant();
        PortalSession session = new PortalSession(
                ids.next("psn"),
                scope.access().id(),
                ApiKeys.hash(token),
                now,
                PortalSession.endOf(scope.access(), now));
        ObjectNode view = store.inTransaction(tx -> {
            tx.portal().insertSession(session);
            return sessionView(tx, new PortalScope(scope.access(), session));
        });
        view.put("token", token);
        return new ApiResponse(201, view, java.util.Map.of("Cache-Control", "no-store"));
    }

    /** What the page needs to draw itself: the application, the capabilities, the session's end, the branding. */
    ObjectNode session(PortalScope scope) {
        return store.inReadTransaction(tx -> sessionView(tx, scope));
    }

    private ObjectNode sessionView(dev.idem.core.store.StoreTx tx, PortalScope scope) {
        PortalAccess a = scope.access();
        ObjectNode o = Json.object();
        o.put("object", "portal_session");
        o.put("access", a.id());
        o.set("application", FanoutViews.application(ApplicationService.find(tx, a.tenant(), a.applicationId())));
        ArrayNode caps = o.putArray("capabilities");
        a.capabilities().forEach(c -> caps.add(c.wireName()));
        o.put("expires_at", Json.time(scope.session().expiresAt()));
        o.put("access_expires_at", Json.time(a.expiresAt()));
        o.set("portal", PortalSettingsFields.view(tx.portal().settings(a.tenant())));
        return o;
    }

    private static ObjectNode view(PortalAccess a) {
        ObjectNode o = Json.object();
        o.put("object", "portal_access");
        o.put("id", a.id());
        o.put("application", a.applicationId());
        ArrayNode caps = o.putArray("capabilities");
        a.capabilities().forEach(c -> caps.add(c.wireName()));
        o.put("session", a.session());
        o.put("created_at", Json.time(a.createdAt()));
        o.put("expires_at", Json.time(a.expiresAt()));
        return o;
    }
}

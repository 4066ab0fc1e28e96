package dev.idem.server.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.IdGenerator;
import dev.idem.core.Page;
import dev.idem.core.Tenant;
import dev.idem.core.portal.AuditEntry;
import dev.idem.core.store.Store;
import dev.idem.core.store.StoreTx;
import io.javalin.http.Context;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The audit log of changes made through the portal. A change is recorded in the transaction that makes it, so there
 * is no change without its entry and no entry without its change; a change made with an API key is not recorded.
 * An entry names the fields a request gave, never their values (a secret may be one).
 */
final class PortalAudit {
    private PortalAudit() {}

    /** Records {@code response}'s change when a portal session made it and it succeeded; returns {@code response}. */
    static ApiResponse record(Context ctx, StoreTx tx, ApiResponse response, IdGenerator ids, java.time.Instant now) {
        if (response.status() / 100 != 2) return response;
        PortalScope scope = PortalScope.of(ctx).orElse(null);
        if (scope == null || scope.session() == null) return response;
        PortalGuard.Rule rule = PortalGuard.matched(ctx).orElse(null);
        if (rule == null || rule.action() == null) return response;
        String[] segments = ctx.path().split("/");
        // a bulk replay names its endpoint in the body (the guard checked it is there)
        String objectId = rule.scope() == PortalGuard.Scope.ENDPOINT_BODY
                ? PortalGuard.bodyEndpoint(ctx).orElse(null)
                : segments.length > 3
                        ? segments[3]
                        : response.body() != null && response.body().hasNonNull("id")
                                ? response.body().get("id").asText()
                                : null;
        tx.portal()
                .insertAudit(new AuditEntry(
                        ids.next("aud"),
                        scope.access().tenant(),
                        scope.applicationId(),
                        scope.access().id(),
                        scope.access().session(),
                        rule.action(),
                        objectId,
                        fields(ctx),
                        now));
        return response;
    }

    private static String fields(Context ctx) {
        if (ctx.bodyAsBytes().length == 0) return null;
        try {
            ObjectNode body = HttpApi.body(ctx);
            List<String> names = new ArrayList<>();
            for (Iterator<String> it = body.fieldNames(); it.hasNext(); ) names.add(it.next());
            names.sort(null);
            return names.isEmpty() ? null : String.join(",", names);
        } catch (ApiException notAnObject) {
            return null;
        }
    }

    /** {@code GET /v1/audit-log[?application=]}: newest first. */
    static ObjectNode list(Store store, Tenant tenant, String application, int limit, String startingAfter) {
        return store.inReadTransaction(tx -> {
            String applicationId = application == null
                    ? null
                    : ApplicationService.find(tx, tenant, application).id();
            Page<AuditEntry> page = tx.portal().audit(tenant, applicationId, limit, startingAfter);
            return Views.list("/v1/audit-log", page, PortalAudit::view);
        });
    }

    static ObjectNode view(AuditEntry e) {
        ObjectNode o = Json.object();
        o.put("object", "audit_entry");
        o.put("id", e.id());
        o.put("application", e.applicationId());
        ObjectNode actor = o.putObject("actor");
        actor.put("type", "portal_session");
        actor.put("portal_access", e.accessId());
        actor.put("session", e.session());
        o.put("action", e.action());
        o.put("object_id", e.objectId());
        ArrayNode fields = o.putArray("fields");
        if (e.fields() != null) for (String f : e.fields().split(",")) fields.add(f);
        o.put("created_at", Json.time(e.at()));
        return o;
    }
}

package dev.idem.server.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.AlertEvent;
import dev.idem.core.ProjectSettings;
import dev.idem.core.Tenant;
import io.javalin.config.RoutesConfig;
import java.util.EnumSet;
import java.util.Set;

/**
 * {@code GET /v1/settings} and {@code PATCH /v1/settings}: a tenant's alert endpoint and the events that raise an alert
 * (docs/alerts.md; the alerts themselves are raised by the store when it records an outcome). A PATCH
 * changes the fields it gives and keeps the others; {@code "alert_endpoint": null} turns alerts off. {@code portal}
 * holds the customer portal's branding and the origins that may embed it ({@link PortalSettingsFields}).
 */
final class SettingsRoutes {
    static final String PATH = "/v1/settings";
    private static final Set<String> FIELDS = Set.of("alert_endpoint", "alert_events", "portal", "disable_after");

    private SettingsRoutes() {}

    static void install(RoutesConfig r, HttpApi.Services s) {
        r.get(
                PATH,
                ctx -> HttpApi.json(
                        ctx,
                        200,
                        s.store()
                                .inReadTransaction(tx -> view(
                                        tx.settings().find(Authenticator.tenant(ctx)),
                                        tx.portal().settings(Authenticator.tenant(ctx))))));
        r.patch(PATH, ctx -> {
            HttpApi.checkSize(ctx);
            ObjectNode body = HttpApi.body(ctx);
            Change change = parse(s.schedules().parser(), body);
            Tenant tenant = Authenticator.tenant(ctx);
            // checked whole against today's values before anything is saved: bad input changes nothing
            Fields portal = Fields.of(body).object("portal");
            if (portal != null)
                PortalSettingsFields.apply(dev.idem.core.portal.PortalSettings.defaults(tenant), portal);
            s.idempotency().run(ctx, tenant, tx -> {
                ProjectSettings next = change.applyTo(tx.settings().find(tenant));
                tx.settings().save(next);
                dev.idem.core.portal.PortalSettings branding = tx.portal().settings(tenant);
                if (portal != null) {
                    branding = PortalSettingsFields.apply(branding, portal);
                    tx.portal().saveSettings(branding);
                }
                return ApiResponse.ok(view(next, branding));
            });
        });
    }

    /**
     * A validated PATCH body; a field it does not give is null here.
     *
     * @param clearEndpoint whether {@code alert_endpoint} was given as null
     */
    record Change(String endpoint, boolean clearEndpoint, Set<AlertEvent> events, java.time.Duration disableAfter) {
        ProjectSettings applyTo(ProjectSettings current) {
            String e = clearEndpoint ? null : endpoint != null ? endpoint : current.alertEndpoint();
            return new ProjectSettings(
                    current.tenant(),
                    e,
                    events != null ? events : current.alertEvents(),
                    disableAfter != null ? disableAfter : current.disableAfter());
        }
    }

    /** Checks the whole body before anything is written, so bad input changes nothing. */
    static Change parse(ScheduleParser parser, ObjectNode body) {
        Fields f = Fields.of(body).only(FIELDS);
        JsonNode rawEndpoint = f.raw("alert_endpoint");
        boolean clear = rawEndpoint != null && rawEndpoint.isNull();
        String endpoint = rawEndpoint == null || clear ? null : parser.endpoint(f, "alert_endpoint");
        // disable_after: how long an endpoint's every attempt must fail before it is disabled (1h to 90d)
        java.time.Duration disableAfter =
                f.duration("disable_after", ProjectSettings.MIN_DISABLE_AFTER, java.time.Duration.ofDays(90));
        return new Change(endpoint, clear, events(f.raw("alert_events")), disableAfter);
    }

    private static Set<AlertEvent> events(JsonNode n) {
        if (n == null) return null;
        if (!n.isArray())
            throw ApiException.invalid(
                    "parameter_invalid_type",
                    "alert_events",
                    "alert_events must be an array of event names (" + AlertEvent.names() + "); [] for none");
        Set<AlertEvent> out = EnumSet.noneOf(AlertEvent.class);
        for (int i = 0; i < n.size(); i++) {
            JsonNode e = n.get(i);
            String param = "alert_events[" + i + "]";
            if (!e.isTextual())
                throw ApiException.invalid(
                        "parameter_invalid_type", param, param + " must be a string, one of " + AlertEvent.names());
            try {
                out.add(AlertEvent.parse(e.asText()));
            } catch (IllegalArgumentException unknown) {
                throw ApiException.invalid("parameter_invalid", param, param + ": " + unknown.getMessage());
            }
        }
        return out;
    }

    static ObjectNode view(ProjectSettings s, dev.idem.core.portal.PortalSettings portal) {
        ObjectNode o = Json.object();
        o.put("object", "settings");
        o.put("alert_endpoint", s.alertEndpoint());
        ArrayNode events = o.putArray("alert_events");
        s.alertEvents().forEach(e -> events.add(e.wireName()));
        o.put("disable_after", dev.idem.core.Durations.format(s.disableAfter()));
        o.set("portal", PortalSettingsFields.view(portal));
        return o;
    }
}

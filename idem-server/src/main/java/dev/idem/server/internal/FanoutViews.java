package dev.idem.server.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.Mode;
import dev.idem.core.fanout.Application;
import dev.idem.core.fanout.Endpoint;
import dev.idem.core.fanout.EventType;

/** The JSON shapes of applications, endpoints and event types. Never an endpoint's secret (its own route reveals it). */
final class FanoutViews {
    private FanoutViews() {}

    static ObjectNode application(Application a) {
        ObjectNode o = Json.object();
        o.put("id", a.id());
        o.put("object", "application");
        o.put("livemode", a.tenant().mode() == Mode.LIVE);
        o.put("uid", a.uid());
        o.put("name", a.name());
        o.put("status", a.deleted() ? "deleted" : "active");
        json(o, "metadata", a.metadataJson());
        o.put("rate_limit", a.rateLimit());
        o.put("created_at", Json.time(a.createdAt()));
        o.put("updated_at", Json.time(a.updatedAt()));
        return o;
    }

    static ObjectNode endpoint(Endpoint e) {
        ObjectNode o = Json.object();
        o.put("id", e.id());
        o.put("object", "endpoint");
        o.put("livemode", e.tenant().mode() == Mode.LIVE);
        o.put("url", e.url());
        o.put("application", e.applicationId());
        o.put("description", e.description());
        o.put("status", e.deleted() ? "deleted" : e.disabled() ? "disabled" : "enabled");
        o.put("disabled", e.disabled());
        o.put(
                "disabled_reason",
                e.disabledReason() == null ? null : e.disabledReason().wireName());
        if (e.eventTypes() == null) o.putNull("event_types");
        else {
            ArrayNode types = o.putArray("event_types");
            e.eventTypes().asList().forEach(types::add);
        }
        json(o, "filter", e.filter() == null ? null : e.filter().json());
        ObjectNode headers = o.putObject("headers");
        e.headers().forEach(headers::put);
        o.put("rate_limit", e.rateLimit());
        json(o, "metadata", e.metadataJson());
        o.put("created_at", Json.time(e.createdAt()));
        o.put("updated_at", Json.time(e.updatedAt()));
        return o;
    }

    /**
     * The endpoint with its {@code health}: success rate over the last 24 to 48 hours (null before any attempt), the
     * last success and failure, and since when every attempt has failed.
     */
    static ObjectNode endpoint(Endpoint e, dev.idem.core.outcome.EndpointHealth h, java.time.Instant now) {
        ObjectNode o = endpoint(e);
        ObjectNode health = o.putObject("health");
        dev.idem.core.outcome.EndpointHealth at =
                (h == null ? dev.idem.core.outcome.EndpointHealth.none(now) : h).rolled(now);
        Double rate = at.successRate(now);
        if (rate == null) health.putNull("success_rate");
        else health.put("success_rate", rate);
        health.put("attempts", at.attempts() + at.previousAttempts());
        health.put("failures", at.failures() + at.previousFailures());
        health.put("last_success_at", Json.time(at.lastSuccessAt()));
        health.put("last_failure_at", Json.time(at.lastFailureAt()));
        health.put("last_failure", at.lastFailure());
        health.put("failing_since", Json.time(at.failingSince()));
        return o;
    }

    static ObjectNode eventType(EventType t) {
        ObjectNode o = Json.object();
        o.put("object", "event_type");
        o.put("livemode", t.tenant().mode() == Mode.LIVE);
        o.put("name", t.name());
        o.put("description", t.description());
        json(o, "schema", t.schema() == null ? null : t.schema().json());
        json(o, "example", t.exampleJson());
        o.put("deprecated", t.deprecated());
        o.put("created_at", Json.time(t.createdAt()));
        o.put("updated_at", Json.time(t.updatedAt()));
        return o;
    }

    private static void json(ObjectNode o, String field, String text) {
        if (text == null) o.putNull(field);
        else o.set(field, Json.parseStored(text));
    }
}

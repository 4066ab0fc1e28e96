package dev.idem.server.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.core.FlowControl;
import dev.idem.core.Tenant;
import dev.idem.core.fanout.Application;
import dev.idem.core.fanout.EventSchema;
import dev.idem.core.fanout.EventTypePatterns;
import dev.idem.core.fanout.Filter;
import dev.idem.core.fanout.InvalidJsonException;
import dev.idem.core.store.StoreTx;
import java.util.ArrayList;
import java.util.List;

/**
 * Fields that applications, endpoints and event types share, checked by the rules in {@code dev.idem.core.fanout}
 * and refused with a 400 naming the field (and, inside a filter or schema, the path in it).
 */
final class FanoutFields {
    static final int MAX_NAME_LENGTH = 256;
    static final int MAX_DESCRIPTION_LENGTH = 2000;
    static final int MAX_FILTER_BYTES = 16 * 1024;
    static final int MAX_SCHEMA_BYTES = 64 * 1024;

    private FanoutFields() {}

    /** {@code rate_limit}: deliveries a second, as {@code flow_control.rate}; null when not given. */
    static Integer rateLimit(Fields f) {
        return f.integer("rate_limit", 1, FlowControl.MAX_RATE);
    }

    /** {@code event_types}: names, {@code prefix.*} or {@code *}; null when not given (every event type). */
    static EventTypePatterns eventTypes(Fields f) {
        JsonNode n = f.raw("event_types");
        if (n == null || n.isNull()) return null;
        if (!n.isArray())
            throw ApiException.invalid(
                    "parameter_invalid_type", "event_types", "event_types must be an array of event type names");
        List<String> patterns = new ArrayList<>();
        for (int i = 0; i < n.size(); i++) {
            if (!n.get(i).isTextual())
                throw ApiException.invalid(
                        "parameter_invalid_type", "event_types[" + i + "]", "event_types[" + i + "] must be a string");
            patterns.add(n.get(i).asText());
        }
        try {
            return EventTypePatterns.of(patterns);
        } catch (IllegalArgumentException e) {
            String m = e.getMessage(); // "[i]: why" for one pattern, else about the list
            String param = m.startsWith("[") ? "event_types" + m.substring(0, m.indexOf(']') + 1) : "event_types";
            throw ApiException.invalid(
                    "event_type_pattern_invalid", param, "event_types" + (m.startsWith("[") ? "" : ": ") + m);
        }
    }

    /** {@code filter}: a JSON object in the filter language; null when not given. */
    static Filter filter(Fields f) {
        JsonNode n = f.raw("filter");
        if (n == null || n.isNull()) return null;
        return filter(n, f.name("filter"));
    }

    static Filter filter(JsonNode n, String field) {
        if (Json.compact(n).length() > MAX_FILTER_BYTES)
            throw ApiException.invalid("parameter_too_long", field, field + " must be at most 16 KiB");
        try {
            return Filter.parse(n);
        } catch (InvalidJsonException e) {
            throw ApiException.invalid("filter_invalid", join(field, e.path()), field + ": " + e.getMessage());
        }
    }

    /** {@code schema}: a JSON Schema object; null when not given. */
    static EventSchema schema(Fields f) {
        JsonNode n = f.raw("schema");
        if (n == null || n.isNull()) return null;
        if (Json.compact(n).length() > MAX_SCHEMA_BYTES)
            throw ApiException.invalid("parameter_too_long", "schema", "schema must be at most 64 KiB");
        try {
            return EventSchema.parse(n);
        } catch (InvalidJsonException e) {
            throw ApiException.invalid("schema_invalid", join("schema", e.path()), "schema: " + e.getMessage());
        }
    }

    /** Refuses {@code documentJson} (in field {@code field}) when it does not conform to {@code schema}. */
    static void conform(EventSchema schema, String documentJson, String field, String code) {
        if (schema == null || documentJson == null) return;
        List<EventSchema.Violation> v = schema.violations(documentJson, 1);
        if (v.isEmpty()) return;
        String at = join(field, v.get(0).path());
        throw ApiException.invalid(
                code,
                at,
                at + " does not match the event type's schema: " + v.get(0).message());
    }

    /** {@code field.path}, or {@code field[0]…} when the path starts with an index. */
    static String join(String field, String path) {
        if (path.isEmpty()) return field;
        return path.startsWith("[") ? field + path : field + "." + path;
    }

    /** The application named by {@code reference} (an id or uid; deleted or not), else 400 naming {@code field}. */
    static Application knownApplication(StoreTx tx, Tenant tenant, String reference, String field) {
        return tx.applications()
                .find(tenant, reference)
                .orElseThrow(() -> ApiException.invalid(
                        "application_unknown", field, "No application with id or uid '" + reference + "'"));
    }

    /**
     * The application {@code reference} (an id or a uid) names in the tenant, for an endpoint to belong to: it must
     * exist and not be deleted, else 400 naming {@code field}.
     */
    static Application liveApplication(StoreTx tx, Tenant tenant, String reference, String field) {
        Application a = knownApplication(tx, tenant, reference, field);
        if (a.deleted())
            throw ApiException.invalid(
                    "application_deleted", field, "Application " + a.id() + " is deleted; its endpoints stay disabled");
        return a;
    }
}

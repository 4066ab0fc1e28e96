package dev.idem.client.model;

import java.util.List;
import java.util.Map;

/** The body of {@code POST /v1/endpoints} ({@link #create}) or {@code PATCH /v1/endpoints/{id}} ({@link #update}). */
public final class EndpointFields extends JsonFields<EndpointFields> {
    private EndpointFields() {}

    /** A new endpoint receiving at {@code url}. */
    public static EndpointFields create(String url) {
        return new EndpointFields().url(url);
    }

    /**
     * An update: only the fields set change; {@link #clear} clears {@code description}, {@code event_types} (every type
     * again), {@code filter}, {@code rate_limit} and {@code metadata}.
     */
    public static EndpointFields update() {
        return new EndpointFields();
    }

    public EndpointFields url(String url) {
        return param("url", url);
    }

    /** The owning application, by id or uid (only at create: an endpoint stays with its application). */
    public EndpointFields application(String idOrUid) {
        return param("application", idOrUid);
    }

    public EndpointFields description(String description) {
        return param("description", description);
    }

    /** Event type names, prefixes ({@code invoice.*}) or {@code *}; not set: every event type. */
    public EndpointFields eventTypes(String... patterns) {
        return param("event_types", List.of(patterns));
    }

    /** A filter over the payload (a map, a {@code JsonNode} or JSON-shaped record), e.g. {@code {"data.amount": {"$gte": 1000}}}. */
    public EndpointFields filter(Object filter) {
        return param("filter", filter);
    }

    public EndpointFields headers(Map<String, String> headers) {
        return param("headers", headers);
    }

    /** The most deliveries a second it is sent. */
    public EndpointFields rateLimit(int perSecond) {
        return param("rate_limit", perSecond);
    }

    /** Disabled (it receives nothing) or enabled again. */
    public EndpointFields disabled(boolean disabled) {
        return param("disabled", disabled);
    }
}

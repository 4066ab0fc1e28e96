package dev.idem.core.fanout;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.core.Tenant;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * A URL that receives a project's messages ({@code ep_…}): those of the event types it subscribes to whose payload
 * its filter matches, while it is neither disabled nor deleted. Its signing secret is kept apart, sealed.
 *
 * @param applicationId the owning application's id, or null for an endpoint of the project itself
 * @param eventTypes the event types it receives, or null for every one
 * @param filter the filter a payload must match, or null for every payload
 * @param headers extra request headers sent to it
 * @param rateLimit the most deliveries a second it is sent, or null for no limit of its own
 * @param disabledReason why it is disabled (null when it is not)
 * @param metadataJson free JSON object text kept with it, or null
 */
public record Endpoint(
        String id,
        Tenant tenant,
        String applicationId,
        String url,
        String description,
        EventTypePatterns eventTypes,
        Filter filter,
        Map<String, String> headers,
        Integer rateLimit,
        DisabledReason disabledReason,
        String metadataJson,
        boolean deleted,
        Instant createdAt,
        Instant updatedAt) {
    public static final String ID_PREFIX = "ep_";

    /**
     * The {@code paused_reason} of the one-shot of a delivery that waits, unattempted, for its endpoint to be enabled
     * (the endpoint is disabled or deleted): enabling the endpoint resumes exactly those.
     */
    public static final String PAUSED_REASON = "endpoint_disabled";

    public Endpoint {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(createdAt, "createdAt");
        Objects.requireNonNull(updatedAt, "updatedAt");
        headers = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(headers)); // order as given
        if (rateLimit != null && rateLimit < 1) throw new IllegalArgumentException("rate_limit must be at least 1");
    }

    public boolean disabled() {
        return disabledReason != null;
    }

    /** Whether it receives messages at all: neither disabled nor deleted. */
    public boolean active() {
        return !disabled() && !deleted;
    }

    /** Whether it subscribes to event type {@code name} (whatever its filter and state). */
    public boolean subscribesTo(String name) {
        return eventTypes == null || eventTypes.matches(name);
    }

    /**
     * Whether a message of event type {@code eventType} with {@code payload} (null when the body is not JSON) is for
     * this endpoint: it is active, subscribes to the type, and its filter matches.
     */
    public boolean receives(String eventType, JsonNode payload) {
        return active() && subscribesTo(eventType) && (filter == null || filter.matches(payload));
    }

    /** This endpoint with its settings replaced, at {@code now}; its application, state and secret stay. */
    public Endpoint with(
            String url,
            String description,
            EventTypePatterns eventTypes,
            Filter filter,
            Map<String, String> headers,
            Integer rateLimit,
            String metadataJson,
            Instant now) {
        return new Endpoint(
                id,
                tenant,
                applicationId,
                url,
                description,
                eventTypes,
                filter,
                headers,
                rateLimit,
                disabledReason,
                metadataJson,
                deleted,
                createdAt,
                now);
    }

    /** Disabled for {@code reason}, or enabled again with null. */
    public Endpoint withDisabled(DisabledReason reason, Instant now) {
        return withState(reason, deleted, now);
    }

    public Endpoint asDeleted(Instant now) {
        return withState(disabledReason, true, now);
    }

    private Endpoint withState(DisabledReason reason, boolean deleted, Instant now) {
        return new Endpoint(
                id,
                tenant,
                applicationId,
                url,
                description,
                eventTypes,
                filter,
                headers,
                rateLimit,
                reason,
                metadataJson,
                deleted,
                createdAt,
                now);
    }
}

package dev.idem.client.model;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.client.internal.Json;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * Which dead deliveries {@code POST /v1/deliveries/replay} replays: the dead-letter queue, narrowed by schedule,
 * exact endpoint URL, endpoint id or application, and the time each went dead ({@code since} inclusive, {@code until} exclusive). Times are instants
 * or durations back from the call's start on the server ({@code "1h"}).
 *
 * <pre>{@code ReplayFilter.dead().since(Duration.ofHours(1)).scheduleId("sch_…").build()}</pre>
 */
public final class ReplayFilter {
    private final ObjectNode body;

    private ReplayFilter(ObjectNode body) {
        this.body = body;
    }

    /** Every dead delivery; narrow it with the builder. */
    public static Builder dead() {
        return new Builder();
    }

    /** The request body, {@code {"status": "dead", …}}. */
    public byte[] bytes() {
        try {
            return Json.MAPPER.writeValueAsBytes(body);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("a filter of strings cannot fail to serialise", e);
        }
    }

    @Override
    public String toString() {
        return new String(bytes(), java.nio.charset.StandardCharsets.UTF_8);
    }

    public static final class Builder {
        private final ObjectNode body = Json.MAPPER.createObjectNode().put("status", "dead");

        private Builder() {}

        public Builder scheduleId(String id) {
            return put("schedule_id", id);
        }

        /** Only deliveries of schedules whose endpoint is exactly this URL. */
        public Builder endpoint(String url) {
            return put("endpoint", url);
        }

        /** Only messages' deliveries to this endpoint ({@code ep_…}); not with {@link #scheduleId}. */
        public Builder endpointId(String id) {
            return put("endpoint_id", id);
        }

        /** Only messages' deliveries to this application's endpoints (its id or uid); not with {@link #scheduleId}. */
        public Builder application(String idOrUid) {
            return put("application", idOrUid);
        }

        /** Went dead at or after: an RFC 3339 instant or a duration back from now ({@code "1h"}, {@code "PT30M"}), as the API takes it. */
        public Builder since(String instantOrDuration) {
            return put("since", instantOrDuration);
        }

        public Builder since(Instant instant) {
            return put("since", instant.toString());
        }

        /** Went dead within this long before the call. */
        public Builder since(Duration ago) {
            return put("since", ago.toString());
        }

        /** Went dead before: an RFC 3339 instant or a duration back from now. */
        public Builder until(String instantOrDuration) {
            return put("until", instantOrDuration);
        }

        public Builder until(Instant instant) {
            return put("until", instant.toString());
        }

        public Builder until(Duration ago) {
            return put("until", ago.toString());
        }

        private Builder put(String field, String value) {
            body.put(field, Objects.requireNonNull(value, field));
            return this;
        }

        public ReplayFilter build() {
            return new ReplayFilter(body.deepCopy());
        }
    }
}

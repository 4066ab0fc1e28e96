package dev.idem.client.model;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.client.internal.Json;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The body of {@code POST /v1/schedules}, serialised once: the same bytes go out on every retry and from every
 * outbox relay, so Idem's request fingerprint always matches.
 *
 * <pre>{@code
 * ScheduleCreate req = ScheduleCreate.builder("https://api.example.com/hooks")
 *         .delay(Duration.ofHours(24)).payload(Map.of("invoice", "in_42")).idempotencyKey("invoice-in_42").build();
 * }</pre>
 */
public final class ScheduleCreate {
    private final String json;

    private ScheduleCreate(String json) {
        this.json = json;
    }

    /** A create for {@code endpoint}; with no timing set it fires now. */
    public static Builder builder(String endpoint) {
        return new Builder().endpoint(Objects.requireNonNull(endpoint, "endpoint"));
    }

    /**
     * A create from its JSON text (as stored in an outbox row), kept byte for byte.
     *
     * @throws IllegalArgumentException when the text is not a JSON object
     */
    public static ScheduleCreate fromJson(String json) {
        JsonNode tree;
        try {
            tree = Json.MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("a schedule create must be a JSON object: " + e.getOriginalMessage(), e);
        }
        if (tree == null || !tree.isObject())
            throw new IllegalArgumentException("a schedule create must be a JSON object");
        return new ScheduleCreate(json);
    }

    /** The body as JSON text. */
    public String toJson() {
        return json;
    }

    public byte[] bytes() {
        return json.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return "ScheduleCreate" + json;
    }

    /** Sets fields; {@link #build()} writes the JSON. */
    public static final class Builder extends ScheduleFields<Builder> {
        private Builder() {}

        /** Pins the delivery key the receiver sees to your own id (per occurrence for a recurring schedule). */
        public Builder idempotencyKey(String key) {
            return param("idempotency_key", key);
        }

        /** A second create with the same {@code dedup_id} within 24 h returns the first schedule. */
        public Builder dedupId(String dedupId) {
            return param("dedup_id", dedupId);
        }

        public ScheduleCreate build() {
            JsonNode endpoint = body.get("endpoint");
            if (endpoint == null || !endpoint.isTextual() || endpoint.asText().isBlank())
                throw new IllegalArgumentException("endpoint is required");
            return new ScheduleCreate(body.toString());
        }
    }
}

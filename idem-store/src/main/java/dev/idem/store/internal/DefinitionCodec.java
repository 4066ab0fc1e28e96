package dev.idem.store.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.FlowControl;
import dev.idem.core.HeaderProfile;
import dev.idem.core.RetryPolicy;
import dev.idem.core.ScheduleDefinition;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The stored JSON form of a {@link ScheduleDefinition}, written field by field so that renaming a
 * Java component never changes what is on disk. Durations are milliseconds; the payload and metadata
 * stay the exact compact text the API received (they are strings here, not parsed trees). Fields that are null or at
 * their default are left out and read back as such; text written with every field present reads the same.
 */
final class DefinitionCodec {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Bumped when the stored shape changes incompatibly; readers then migrate old rows. */
    static final int VERSION = 1;

    private DefinitionCodec() {}

    static String write(ScheduleDefinition d) {
        // a field at its default or null is left out (the reader restores it): most schedules, every internal one-shot
        // among them, keep their policy's defaults, and this text is a large part of a one-shot's row
        ObjectNode n = JSON.createObjectNode();
        n.put("v", VERSION);
        n.put("endpoint", d.endpoint());
        n.set("timing", TimingCodec.write(d.timing()));
        putIfSet(n, "payload_json", d.payloadJson());
        putIfSet(n, "body", d.body());
        // bytes that are not storable text (an inbound source's binary event) are kept as base64, marked so
        if (d.bodyBase64()) n.put("body_encoding", "base64");
        // the definition's own default for its body when absent: the reader gets it back by passing null
        String defaultType = d.body() == null ? "application/json" : "text/plain; charset=utf-8";
        if (!defaultType.equals(d.contentType())) putIfSet(n, "content_type", d.contentType());
        if (!d.headers().isEmpty()) {
            ObjectNode headers = n.putObject("headers");
            d.headers().forEach(headers::put);
        }
        putIfSet(n, "event_type", d.eventType());
        putIfSet(n, "idempotency_key", d.idempotencyKey());
        putIfSet(n, "dedup_id", d.dedupId());
        if (!d.retry().equals(RetryPolicy.DEFAULT)) {
            ObjectNode retry = n.putObject("retry");
            retry.put("max_attempts", d.retry().maxAttempts());
            retry.put("initial_backoff_ms", d.retry().initialBackoff().toMillis());
            retry.put("max_backoff_ms", d.retry().maxBackoff().toMillis());
            retry.put("max_age_ms", d.retry().maxAge().toMillis());
        }
        if (!d.timeout().equals(ScheduleDefinition.DEFAULT_TIMEOUT))
            n.put("timeout_ms", d.timeout().toMillis());
        if (d.autoPauseAfter() != ScheduleDefinition.DEFAULT_AUTO_PAUSE_AFTER)
            n.put("auto_pause_after", d.autoPauseAfter());
        if (d.headerProfile() != HeaderProfile.STANDARD)
            n.put("header_profile", d.headerProfile().wireName());
        putIfSet(n, "metadata_json", d.metadataJson());
        if (d.flowControl() != null) {
            ObjectNode fc = n.putObject("flow_control");
            fc.put("key", d.flowControl().key());
            if (d.flowControl().parallelism() != null)
                fc.put("parallelism", d.flowControl().parallelism());
            if (d.flowControl().rate() != null) fc.put("rate", d.flowControl().rate());
        }
        putIfSet(n, "endpoint_id", d.endpointId());
        try {
            return JSON.writeValueAsString(n);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode schedule definition", e);
        }
    }

    /**
     * Decoded definitions by their stored text. A recurring schedule is read at every claim and every
     * materialisation, and decoding compiles its rule; definitions are immutable, so one decoding is
     * shared. Bounded crudely: cleared when full.
     */
    private static final Map<String, ScheduleDefinition> DECODED = new java.util.concurrent.ConcurrentHashMap<>();

    private static final int DECODED_LIMIT = 4096;

    static ScheduleDefinition read(String json) {
        ScheduleDefinition known = DECODED.get(json);
        if (known != null) return known;
        ScheduleDefinition d = decode(json);
        if (DECODED.size() >= DECODED_LIMIT) DECODED.clear();
        DECODED.put(json, d);
        return d;
    }

    private static ScheduleDefinition decode(String json) {
        JsonNode n;
        try {
            n = JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("stored schedule definition is not JSON", e);
        }
        JsonNode r = n.get("retry");
        RetryPolicy retry = r == null || r.isNull()
                ? RetryPolicy.DEFAULT
                : new RetryPolicy(
                        required(r, "max_attempts").asInt(),
                        ms(r, "initial_backoff_ms"),
                        ms(r, "max_backoff_ms"),
                        ms(r, "max_age_ms"));
        Map<String, String> headers = new LinkedHashMap<>();
        JsonNode h = n.get("headers");
        if (h != null)
            for (Iterator<Map.Entry<String, JsonNode>> it = h.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                headers.put(e.getKey(), e.getValue().asText());
            }
        return new ScheduleDefinition(
                text(n, "endpoint"),
                TimingCodec.read(required(n, "timing")),
                text(n, "payload_json"),
                text(n, "body"),
                text(n, "content_type"),
                headers,
                text(n, "event_type"),
                text(n, "idempotency_key"),
                text(n, "dedup_id"),
                retry,
                n.hasNonNull("timeout_ms") ? ms(n, "timeout_ms") : ScheduleDefinition.DEFAULT_TIMEOUT,
                n.hasNonNull("auto_pause_after")
                        ? n.get("auto_pause_after").asInt()
                        : ScheduleDefinition.DEFAULT_AUTO_PAUSE_AFTER,
                n.hasNonNull("header_profile")
                        ? HeaderProfile.parse(text(n, "header_profile"))
                        : HeaderProfile.STANDARD,
                text(n, "metadata_json"),
                flowControl(n.get("flow_control")),
                "base64".equals(text(n, "body_encoding")),
                text(n, "endpoint_id"));
    }

    private static FlowControl flowControl(JsonNode fc) {
        if (fc == null || fc.isNull()) return null;
        return new FlowControl(
                text(fc, "key"),
                fc.hasNonNull("parallelism") ? fc.get("parallelism").asInt() : null,
                fc.hasNonNull("rate") ? fc.get("rate").asInt() : null);
    }

    static JsonNode required(JsonNode n, String field) {
        JsonNode v = n.get(field);
        if (v == null || v.isNull())
            throw new IllegalStateException("stored schedule definition lacks '" + field + "'");
        return v;
    }

    /** The text of {@code field}, or null when absent or JSON null. */
    static String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        return v == null || v.isNull() ? null : v.asText();
    }

    private static Duration ms(JsonNode n, String field) {
        return Duration.ofMillis(required(n, field).asLong());
    }

    private static void putIfSet(ObjectNode n, String field, String value) {
        if (value != null) n.put(field, value);
    }
}

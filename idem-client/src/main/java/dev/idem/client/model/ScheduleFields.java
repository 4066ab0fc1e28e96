package dev.idem.client.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.client.internal.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;

/**
 * The schedule fields a create and an update share (docs/api.md), written into the request body in the order they
 * are set. Idem validates them; this only shapes the JSON. {@link #param} sets a field this client does not know yet.
 */
public abstract class ScheduleFields<B extends ScheduleFields<B>> {
    final ObjectNode body = Json.MAPPER.createObjectNode();

    ScheduleFields() {}

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }

    /** Any field by its API name; {@code value} is turned into JSON ({@code null} becomes JSON null). */
    public B param(String name, Object value) {
        if (name == null || name.isEmpty()) throw new IllegalArgumentException("a field name is required");
        body.set(name, value instanceof JsonNode n ? n : Json.MAPPER.valueToTree(value));
        return self();
    }

    /** The http(s) URL deliveries go to. */
    public B endpoint(String url) {
        return param("endpoint", url);
    }

    /** Fire once after {@code delay} (sent as ISO-8601). */
    public B delay(Duration delay) {
        return param("delay", delay.toString());
    }

    /** Fire once after a delay in the API's form ({@code "90s"}, {@code "24h"}, {@code "PT24H"}). */
    public B delay(String delay) {
        return param("delay", delay);
    }

    public B fireAt(Instant at) {
        return param("fire_at", at.toString());
    }

    /** An RFC 5545 rule, e.g. {@code FREQ=MONTHLY;BYDAY=+2MO;BYHOUR=18;BYMINUTE=0}. */
    public B rrule(String rule) {
        return param("rrule", rule);
    }

    /** A 5-field cron (6 with seconds). */
    public B cron(String cron) {
        return param("cron", cron);
    }

    public B timezone(ZoneId zone) {
        return param("timezone", zone.getId());
    }

    public B timezone(String zone) {
        return param("timezone", zone);
    }

    public B dtstart(LocalDateTime start) {
        return param("dtstart", start.toString());
    }

    public B exdates(List<LocalDateTime> dates) {
        return param("exdates", dates.stream().map(LocalDateTime::toString).toList());
    }

    public B until(Instant until) {
        return param("until", until.toString());
    }

    public B count(int count) {
        return param("count", count);
    }

    /** Which missed occurrences of a rule are delivered after downtime or a pause: {@code latest}, {@code all}, {@code none}. */
    public B catchUp(String policy) {
        return param("catch_up", policy);
    }

    /** The JSON request body: any value Jackson can write (a map, a record, a {@link JsonNode}). */
    public B payload(Object payload) {
        return param("payload", payload);
    }

    /** A payload given as JSON text; it must parse. */
    public B payloadJson(String json) {
        try {
            return param("payload", Json.MAPPER.readTree(json));
        } catch (IOException e) {
            throw new UncheckedIOException("payload is not valid JSON: " + e.getMessage(), e);
        }
    }

    /** A raw body sent verbatim (instead of a JSON payload). */
    public B body(String body) {
        return param("body", body);
    }

    public B contentType(String contentType) {
        return param("content_type", contentType);
    }

    /** Extra request headers (not Idem's own); replaces any set before. */
    public B headers(Map<String, String> headers) {
        return param("headers", headers);
    }

    /** A label such as {@code invoice.reminder}, sent as {@code Idem-Event-Type}. */
    public B eventType(String eventType) {
        return param("event_type", eventType);
    }

    public B retry(RetryPolicy retry) {
        return param("retry", retry);
    }

    /** Per-attempt timeout (at most 60 s). */
    public B timeout(Duration timeout) {
        return param("timeout", timeout.toString());
    }

    /** Consecutive failed attempts before the schedule pauses itself (0 = never). */
    public B autoPauseAfter(int failures) {
        return param("auto_pause_after", failures);
    }

    public B flowControl(FlowControl flowControl) {
        return param("flow_control", flowControl);
    }

    /** {@code standard}, {@code rrule} or {@code schedstack}. */
    public B headerProfile(String profile) {
        return param("header_profile", profile);
    }

    /** Free JSON kept with the schedule. */
    public B metadata(Object metadata) {
        return param("metadata", metadata);
    }
}

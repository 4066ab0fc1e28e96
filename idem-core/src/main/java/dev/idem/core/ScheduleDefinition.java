package dev.idem.core;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What the user asked for, validated and normalised: everything about a schedule that a
 * {@code PATCH} may change. Immutable; change it with the {@code with…} copies.
 *
 * @param payloadJson the {@code payload} as compact JSON text, or null
 * @param body the raw {@code body} string, or null (never both with payloadJson); with {@code bodyBase64}, the
 *     base64 of the body's bytes
 * @param contentType the body's content type; {@code application/json} for payload and envelope
 * @param headers extra request headers, none of them reserved
 * @param metadataJson free JSON kept with the schedule, compact text, or null
 * @param flowControl the limits shared with other schedules of the same flow key, or null for none
 * @param bodyBase64 whether {@code body} holds bytes as base64 rather than text: an inbound source's event that is
 *     not storable text (not UTF-8, or with a NUL), kept and sent byte for byte ({@link #bodyBytes()})
 */
public record ScheduleDefinition(
        String endpoint,
        Timing timing,
        String payloadJson,
        String body,
        String contentType,
        Map<String, String> headers,
        String eventType,
        String idempotencyKey,
        String dedupId,
        RetryPolicy retry,
        Duration timeout,
        int autoPauseAfter,
        HeaderProfile headerProfile,
        String metadataJson,
        FlowControl flowControl,
        boolean bodyBase64) {

    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);
    public static final Duration MAX_TIMEOUT = Duration.ofSeconds(60);
    public static final int DEFAULT_AUTO_PAUSE_AFTER = 5;

    /** A definition without flow control. */
    public ScheduleDefinition(
            String endpoint,
            Timing timing,
            String payloadJson,
            String body,
            String contentType,
            Map<String, String> headers,
            String eventType,
            String idempotencyKey,
            String dedupId,
            RetryPolicy retry,
            Duration timeout,
            int autoPauseAfter,
            HeaderProfile headerProfile,
            String metadataJson) {
        this(
                endpoint,
                timing,
                payloadJson,
                body,
                contentType,
                headers,
                eventType,
                idempotencyKey,
                dedupId,
                retry,
                timeout,
                autoPauseAfter,
                headerProfile,
                metadataJson,
                null,
                false);
    }

    /** A definition whose body, if any, is text. */
    public ScheduleDefinition(
            String endpoint,
            Timing timing,
            String payloadJson,
            String body,
            String contentType,
            Map<String, String> headers,
            String eventType,
            String idempotencyKey,
            String dedupId,
            RetryPolicy retry,
            Duration timeout,
            int autoPauseAfter,
            HeaderProfile headerProfile,
            String metadataJson,
            FlowControl flowControl) {
        this(
                endpoint,
                timing,
                payloadJson,
                body,
                contentType,
                headers,
                eventType,
                idempotencyKey,
                dedupId,
                retry,
                timeout,
                autoPauseAfter,
                headerProfile,
                metadataJson,
                flowControl,
                false);
    }

    public ScheduleDefinition {
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(timing, "timing");
        Objects.requireNonNull(retry, "retry");
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(headerProfile, "headerProfile");
        if (payloadJson != null && body != null) throw new IllegalArgumentException("give payload or body, not both");
        if (bodyBase64 && body == null) throw new IllegalArgumentException("a base64 body needs a body");
        if (timeout.isNegative() || timeout.isZero() || timeout.compareTo(MAX_TIMEOUT) > 0)
            throw new IllegalArgumentException("timeout must be more than 0s and at most 60s");
        if (autoPauseAfter < 0) throw new IllegalArgumentException("auto_pause_after must be 0 (never) or more");
        headers = headers == null ? Map.of() : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(headers));
        if (contentType == null) contentType = body == null ? "application/json" : "text/plain; charset=utf-8";
    }

    /**
     * The bytes a request carries for the payload or body (a base64 body decoded), or null when the schedule sends
     * the envelope.
     */
    public byte[] bodyBytes() {
        if (payloadJson != null) return payloadJson.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        if (body == null) return null;
        return bodyBase64
                ? java.util.Base64.getDecoder().decode(body)
                : body.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    /** Whether the schedule recurs (rrule or cron). */
    public boolean recurring() {
        return !(timing instanceof Timing.Once);
    }

    public ScheduleDefinition withEndpoint(String v) {
        return new ScheduleDefinition(
                v,
                timing,
                payloadJson,
                body,
                contentType,
                headers,
                eventType,
                idempotencyKey,
                dedupId,
                retry,
                timeout,
                autoPauseAfter,
                headerProfile,
                metadataJson,
                flowControl,
                bodyBase64);
    }

    public ScheduleDefinition withFlowControl(FlowControl v) {
        return new ScheduleDefinition(
                endpoint,
                timing,
                payloadJson,
                body,
                contentType,
                headers,
                eventType,
                idempotencyKey,
                dedupId,
                retry,
                timeout,
                autoPauseAfter,
                headerProfile,
                metadataJson,
                v,
                bodyBase64);
    }

    /** The destination (the endpoint's URL without its query, {@link Destination}): the unit of fairness between receivers. */
    public String destination() {
        return Destination.of(endpoint);
    }

    public ScheduleDefinition withTiming(Timing v) {
        return new ScheduleDefinition(
                endpoint,
                v,
                payloadJson,
                body,
                contentType,
                headers,
                eventType,
                idempotencyKey,
                dedupId,
                retry,
                timeout,
                autoPauseAfter,
                headerProfile,
                metadataJson,
                flowControl,
                bodyBase64);
    }
}

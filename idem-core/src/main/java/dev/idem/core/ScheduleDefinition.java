package dev.idem.core;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What the user asked for, validated and normalised: everything about a schedule that a
 * {@code PATCH} may change. Immutable; build one with {@link #builder}, change it with {@link #toBuilder} or the {@code with…} copies.
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
 * @param endpointId the endpoint ({@code ep_…}) whose message this one-shot carries, or null: set, the endpoint rather
 *     than its URL is the unit of fairness and adaptive concurrency ({@link #destination()})
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
        boolean bodyBase64,
        String endpointId) {

    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);
    public static final Duration MAX_TIMEOUT = Duration.ofSeconds(60);
    public static final int DEFAULT_AUTO_PAUSE_AFTER = 5;

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
        return toBuilder().endpoint(v).build();
    }

    public ScheduleDefinition withFlowControl(FlowControl v) {
        return toBuilder().flowControl(v).build();
    }

    /**
     * The destination, the unit of fairness between receivers ({@link Destination}): the endpoint's URL without its
     * query, or for a message's delivery the endpoint itself ({@link Destination#ofEndpoint}), so two endpoints on one
     * URL are two units.
     */
    public String destination() {
        return endpointId == null ? Destination.of(endpoint) : Destination.ofEndpoint(endpoint, endpointId);
    }

    public ScheduleDefinition withTiming(Timing v) {
        return toBuilder().timing(v).build();
    }

    /**
     * A builder for a definition sending to {@code endpoint} on {@code timing}; the rest defaults to: the envelope (no
     * payload or body), no extra headers, no event type, idempotency key or dedup id, {@link RetryPolicy#DEFAULT},
     * {@link #DEFAULT_TIMEOUT}, auto-pause after {@value #DEFAULT_AUTO_PAUSE_AFTER} failures, the standard header
     * profile, no metadata, no flow control. {@link Builder#build()} validates, as the constructor does.
     */
    public static Builder builder(String endpoint, Timing timing) {
        return new Builder(endpoint, timing);
    }

    /** A builder holding this definition's values. */
    public Builder toBuilder() {
        return new Builder(endpoint, timing)
                .payloadJson(payloadJson)
                .body(body, bodyBase64)
                .contentType(contentType)
                .headers(headers)
                .eventType(eventType)
                .idempotencyKey(idempotencyKey)
                .dedupId(dedupId)
                .retry(retry)
                .timeout(timeout)
                .autoPauseAfter(autoPauseAfter)
                .headerProfile(headerProfile)
                .metadataJson(metadataJson)
                .flowControl(flowControl)
                .endpointId(endpointId);
    }

    /** Collects a definition's values; see {@link ScheduleDefinition} for what each means. */
    public static final class Builder {
        private String endpoint;
        private Timing timing;
        private String payloadJson;
        private String body;
        private boolean bodyBase64;
        private String contentType;
        private Map<String, String> headers;
        private String eventType;
        private String idempotencyKey;
        private String dedupId;
        private RetryPolicy retry = RetryPolicy.DEFAULT;
        private Duration timeout = DEFAULT_TIMEOUT;
        private int autoPauseAfter = DEFAULT_AUTO_PAUSE_AFTER;
        private HeaderProfile headerProfile = HeaderProfile.STANDARD;
        private String metadataJson;
        private FlowControl flowControl;
        private String endpointId;

        private Builder(String endpoint, Timing timing) {
            this.endpoint = endpoint;
            this.timing = timing;
        }

        public Builder endpoint(String endpoint) {
            this.endpoint = endpoint;
            return this;
        }

        public Builder timing(Timing timing) {
            this.timing = timing;
            return this;
        }

        public Builder payloadJson(String payloadJson) {
            this.payloadJson = payloadJson;
            return this;
        }

        /** A text body. */
        public Builder body(String body) {
            return body(body, false);
        }

        /** A body: text, or when {@code base64}, the base64 of its bytes. */
        public Builder body(String body, boolean base64) {
            this.body = body;
            this.bodyBase64 = base64;
            return this;
        }

        public Builder contentType(String contentType) {
            this.contentType = contentType;
            return this;
        }

        public Builder headers(Map<String, String> headers) {
            this.headers = headers;
            return this;
        }

        public Builder eventType(String eventType) {
            this.eventType = eventType;
            return this;
        }

        public Builder idempotencyKey(String idempotencyKey) {
            this.idempotencyKey = idempotencyKey;
            return this;
        }

        public Builder dedupId(String dedupId) {
            this.dedupId = dedupId;
            return this;
        }

        public Builder retry(RetryPolicy retry) {
            this.retry = retry;
            return this;
        }

        public Builder timeout(Duration timeout) {
            this.timeout = timeout;
            return this;
        }

        public Builder autoPauseAfter(int autoPauseAfter) {
            this.autoPauseAfter = autoPauseAfter;
            return this;
        }

        public Builder headerProfile(HeaderProfile headerProfile) {
            this.headerProfile = headerProfile;
            return this;
        }

        public Builder metadataJson(String metadataJson) {
            this.metadataJson = metadataJson;
            return this;
        }

        public Builder flowControl(FlowControl flowControl) {
            this.flowControl = flowControl;
            return this;
        }

        /** The endpoint ({@code ep_…}) whose message this one-shot carries: the endpoint is then the destination. */
        public Builder endpointId(String endpointId) {
            this.endpointId = endpointId;
            return this;
        }

        public ScheduleDefinition build() {
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
                    flowControl,
                    bodyBase64,
                    endpointId);
        }
    }
}

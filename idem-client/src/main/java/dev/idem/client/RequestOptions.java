package dev.idem.client;

import dev.idem.client.internal.TraceContext;

/**
 * Per-call options. Without them a mutating call gets a fresh {@code Idempotency-Key} that it keeps across its own
 * retries; give your own key to make a call idempotent across processes (the outbox relay gives each row's id).
 * Every call carries the caller's current trace context when the application has OpenTelemetry
 * (docs/tracing.md); {@link #withTraceContext} sends a given one instead.
 */
public final class RequestOptions {
    private static final RequestOptions NONE = new RequestOptions(null, null, null);

    private final String idempotencyKey;
    private final String traceparent;
    private final String tracestate;

    private RequestOptions(String idempotencyKey, String traceparent, String tracestate) {
        this.idempotencyKey = idempotencyKey;
        this.traceparent = traceparent;
        this.tracestate = tracestate;
    }

    /** No options: an automatic key for mutating calls. */
    public static RequestOptions none() {
        return NONE;
    }

    /**
     * Sends {@code key} as the {@code Idempotency-Key} (1 to 255 characters). Idem keeps a key for 24 hours per project
     * and mode: the same key with the same request replays the first answer; with another request it is refused
     * (409 {@code idempotency_key_reuse}).
     */
    public static RequestOptions idempotencyKey(String key) {
        return NONE.withIdempotencyKey(key);
    }

    /** These options with {@code key} as the {@code Idempotency-Key} ({@link #idempotencyKey(String)}). */
    public RequestOptions withIdempotencyKey(String key) {
        if (key == null || key.isEmpty() || key.length() > 255)
            throw new IllegalArgumentException("an Idempotency-Key must be 1 to 255 characters, got "
                    + (key == null ? "null" : key.length() + " characters"));
        return new RequestOptions(key, traceparent, tracestate);
    }

    /**
     * These options sending the W3C trace context {@code traceparent} (and {@code tracestate}, may be null) instead
     * of the caller's current one: for a call made on behalf of an earlier one, as the outbox relay sends each row
     * in the trace of the transaction that wrote it.
     *
     * @throws IllegalArgumentException when {@code traceparent} is not a version-00 W3C traceparent
     */
    public RequestOptions withTraceContext(String traceparent, String tracestate) {
        if (!TraceContext.validTraceparent(traceparent))
            throw new IllegalArgumentException("not a W3C traceparent (00-<32 hex>-<16 hex>-<2 hex>): " + traceparent);
        return new RequestOptions(idempotencyKey, traceparent, tracestate);
    }

    /** The key given, or null for an automatic one. */
    public String idempotencyKey() {
        return idempotencyKey;
    }

    /** The traceparent given, or null to send the caller's current trace context. */
    public String traceparent() {
        return traceparent;
    }

    /** The tracestate given with {@link #traceparent()}, or null. */
    public String tracestate() {
        return tracestate;
    }
}

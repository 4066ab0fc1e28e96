package dev.idem.engine.internal;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.semconv.ErrorAttributes;
import io.opentelemetry.semconv.HttpAttributes;

/**
 * One attempt's {@code CLIENT} span, with what happened on the wire as events: {@code connection.acquired} (whether a
 * kept-alive connection was reused), {@code dns} (the lookup of a new connection), {@code connected} (TCP connect,
 * and the TLS handshake for {@code https}), {@code response.first_byte} (the response's head arrived). Ended once, with
 * the status code or the error's type.
 */
final class AttemptSpan {
    static final AttributeKey<Boolean> REUSED = AttributeKey.booleanKey("idem.connection.reused");
    static final AttributeKey<Long> DNS_MS = AttributeKey.longKey("idem.dns.duration_ms");

    private final Span span;

    AttemptSpan(Span span) {
        this.span = span;
    }

    Span span() {
        return span;
    }

    void connectionAcquired(boolean reused) {
        span.addEvent("connection.acquired", Attributes.of(REUSED, reused));
    }

    void dns(long millis) {
        span.addEvent("dns", Attributes.of(DNS_MS, millis));
    }

    void connected() {
        span.addEvent("connected");
    }

    void firstByte() {
        span.addEvent("response.first_byte");
    }

    /** Ends the span with the attempt's answer or failure. */
    void end(AttemptResult result) {
        Integer status = result.statusCode();
        if (status != null) span.setAttribute(HttpAttributes.HTTP_RESPONSE_STATUS_CODE, (long) status);
        if (status == null || status >= 300) {
            // a 3xx is a failed attempt here: redirects are never followed
            span.setAttribute(
                    ErrorAttributes.ERROR_TYPE, status != null ? Integer.toString(status) : errorType(result));
            span.setStatus(StatusCode.ERROR, result.error() == null ? "" : result.error());
        }
        span.end();
    }

    /** The exchange was abandoned at shutdown. */
    void aborted() {
        span.setAttribute(ErrorAttributes.ERROR_TYPE, "aborted");
        span.setStatus(StatusCode.ERROR, "abandoned at shutdown");
        span.end();
    }

    /** A low-cardinality name for a failure without a status (the error texts of {@link SendOutcomes}). */
    static String errorType(AttemptResult r) {
        String e = r.error() == null ? "" : r.error();
        if (e.startsWith("timeout")) return "timeout";
        if (e.startsWith("connect timeout")) return "connect_timeout";
        if (e.startsWith("connection failed: host")) return "dns";
        if (e.startsWith("connection failed")) return "connection_refused";
        if (e.startsWith("TLS")) return "tls";
        if (e.startsWith("endpoint refused")) return "endpoint_refused";
        if (e.startsWith("I/O error")) return "io";
        if (e.startsWith("header") || e.startsWith("request could not")) return "not_sent";
        return ErrorAttributes.ErrorTypeValues.OTHER;
    }
}

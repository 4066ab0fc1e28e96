package dev.idem.core;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The W3C Trace Context of the request that made a schedule, a message or a source's event: its {@code traceparent},
 * and its {@code tracestate} when there was one. Stored with the schedule, it goes out on every attempt, so the
 * receiver's work joins the creator's trace.
 *
 * @param traceparent {@code 00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>}, as sent (lower case)
 * @param tracestate the vendors' list beside it, or null
 */
public record TraceContext(String traceparent, String tracestate) {
    /** Version 00's form; a later version may add fields after the flags, which a reader keeps but ignores. */
    private static final Pattern TRACEPARENT =
            Pattern.compile("[0-9a-f]{2}-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}(-[0-9a-zA-Z_.=-]*)?");

    private static final String ZERO_TRACE = "0".repeat(32);
    private static final String ZERO_SPAN = "0".repeat(16);
    /** W3C's limit for what a vendor list may carry (32 members of at most 256 characters, with separators). */
    static final int MAX_TRACESTATE = 8_192;

    public TraceContext {
        if (parse(traceparent).isEmpty()) throw new IllegalArgumentException("not a W3C traceparent");
        if (tracestate != null && (tracestate.isBlank() || tracestate.length() > MAX_TRACESTATE)) tracestate = null;
    }

    /**
     * The context of a request's headers, or empty when it has no valid {@code traceparent}: as the W3C specification
     * says, a receiver ignores a malformed one (and its {@code tracestate}) rather than refusing the request.
     */
    public static Optional<TraceContext> fromHeaders(String traceparent, String tracestate) {
        return parse(traceparent).map(tp -> new TraceContext(tp, tracestate));
    }

    /** The 32 hex digits of the trace id. */
    public String traceId() {
        return traceparent.substring(3, 35);
    }

    private static Optional<String> parse(String traceparent) {
        if (traceparent == null || traceparent.length() > 512) return Optional.empty();
        String t = traceparent.strip();
        var m = TRACEPARENT.matcher(t);
        if (!m.matches() || t.startsWith("ff") || (t.startsWith("00") && m.group(3) != null)) return Optional.empty();
        if (m.group(1).equals(ZERO_TRACE) || m.group(2).equals(ZERO_SPAN)) return Optional.empty();
        return Optional.of(t);
    }
}

package dev.idem.client.internal;

import java.util.Map;

/**
 * The W3C trace context ({@code traceparent}, {@code tracestate}) of the caller's current span, read through the
 * OpenTelemetry API when the application has it on the class path and has registered an SDK globally; an empty map
 * otherwise. Only {@link OtelTraceContext} names OpenTelemetry types, and it is loaded only when the API is there.
 */
public final class TraceContext {
    private static final boolean API_PRESENT = apiPresent();

    private TraceContext() {}

    /** The current context's headers, or an empty map (no API, no SDK registered, no valid current span). */
    public static Map<String, String> current() {
        return API_PRESENT ? OtelTraceContext.current() : Map.of();
    }

    /** A traceparent's shape: version 00, 32 and 16 lower-case hex digits that are not all zero, flags. */
    public static boolean validTraceparent(String value) {
        return value != null && value.matches("00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}");
    }

    private static boolean apiPresent() {
        try {
            Class.forName("io.opentelemetry.api.GlobalOpenTelemetry", false, TraceContext.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}

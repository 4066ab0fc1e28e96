package dev.idem.client.internal;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Context;
import java.util.HashMap;
import java.util.Map;

/** The OpenTelemetry side of {@link TraceContext}; loaded only when the API is on the class path. */
final class OtelTraceContext {
    private static final boolean IS_SET = hasIsSet();

    private OtelTraceContext() {}

    static Map<String, String> current() {
        // isSet, not get: get() would register a no-op and make the application's later set() fail
        if (IS_SET && !GlobalOpenTelemetry.isSet()) return Map.of();
        Context context = Context.current();
        if (!Span.fromContext(context).getSpanContext().isValid()) return Map.of();
        Map<String, String> headers = new HashMap<>(2);
        GlobalOpenTelemetry.getPropagators()
                .getTextMapPropagator()
                .inject(context, headers, (carrier, key, value) -> carrier.put(key, value));
        return headers;
    }

    private static boolean hasIsSet() {
        try {
            GlobalOpenTelemetry.class.getMethod("isSet");
            return true;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }
}

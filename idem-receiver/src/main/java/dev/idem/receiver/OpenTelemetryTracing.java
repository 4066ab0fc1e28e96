package dev.idem.receiver;

import io.opentelemetry.api.OpenTelemetry;
import java.util.Objects;

/**
 * {@link ReceiverTracing} over a given {@link OpenTelemetry} instead of {@code GlobalOpenTelemetry}: for an
 * application that builds its SDK itself without registering it globally, or a test's in-memory SDK. Only for
 * applications that have the OpenTelemetry API on the class path (this class mentions its types).
 */
public final class OpenTelemetryTracing {
    private OpenTelemetryTracing() {}

    /** Spans through {@code openTelemetry}'s tracer and propagators. */
    public static ReceiverTracing of(OpenTelemetry openTelemetry) {
        return OtelReceiverTracing.of(Objects.requireNonNull(openTelemetry, "openTelemetry"));
    }
}

package dev.idem.cli;

import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import java.util.Map;

/**
 * The node's OpenTelemetry SDK when {@code --otel} is given (docs/tracing.md): configured by the SDK's
 * autoconfiguration from the standard {@code OTEL_*} variables and {@code otel.*} system properties (OTLP exporter,
 * endpoint, sampler, resource attributes). Idem's defaults beside them: service name {@code idem}, and no metrics or
 * logs exporter (the node's metrics are Prometheus on {@code /metrics}, its logs go to stdout), OTLP over HTTP; a
 * variable set by the operator wins over each. Without {@code --otel} no SDK is made and the node traces nothing.
 */
final class Telemetry {
    static final Map<String, String> DEFAULTS = Map.of(
            "otel.service.name", "idem",
            // OTLP over HTTP: the JDK's HTTP client sends it (the jar carries no gRPC transport)
            "otel.exporter.otlp.protocol", "http/protobuf",
            "otel.metrics.exporter", "none",
            "otel.logs.exporter", "none");

    private Telemetry() {}

    /** A started SDK, not registered globally (the node is given it), or null when {@code on} is false. */
    static OpenTelemetrySdk start(boolean on) {
        if (!on) return null;
        return AutoConfiguredOpenTelemetrySdk.builder()
                .addPropertiesSupplier(() -> DEFAULTS)
                .disableShutdownHook() // closed after the node, so the node's last spans are exported
                .build()
                .getOpenTelemetrySdk();
    }
}

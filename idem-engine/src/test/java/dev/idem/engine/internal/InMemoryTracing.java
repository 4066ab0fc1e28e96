package dev.idem.engine.internal;

import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.List;

/**
 * An OpenTelemetry SDK whose finished spans are kept in memory, exported as each one ends, for the tracing tests to
 * read back. One per test, closed after it.
 *
 * <p>Not the SDK's own {@code OpenTelemetryExtension}: that one installs itself as the global OpenTelemetry, which
 * the engine never reads (it is handed its instance), and lives for a whole test class where these tests want a fresh
 * SDK each.
 */
final class InMemoryTracing implements AutoCloseable {
    private final InMemorySpanExporter exported = InMemorySpanExporter.create();
    private final OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder()
                    .addSpanProcessor(SimpleSpanProcessor.create(exported))
                    .build())
            .build();

    /** The SDK to hand the code under test. */
    OpenTelemetrySdk otel() {
        return otel;
    }

    /** Every span finished so far, in the order they ended. */
    List<SpanData> spans() {
        return exported.getFinishedSpanItems();
    }

    /** The finished spans called {@code name}. */
    List<SpanData> named(String name) {
        return spans().stream().filter(s -> s.getName().equals(name)).toList();
    }

    /** Forgets the spans finished so far. */
    void reset() {
        exported.reset();
    }

    @Override
    public void close() {
        otel.close();
    }
}

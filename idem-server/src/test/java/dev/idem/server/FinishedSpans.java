package dev.idem.server;

import static org.awaitility.Awaitility.await;

import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.util.Optional;

/** Lookups over the spans a node under test has finished, for the tracing tests' assertions. */
final class FinishedSpans {
    private final InMemorySpanExporter spans;

    FinishedSpans(InMemorySpanExporter spans) {
        this.spans = spans;
    }

    /** The attempt span under {@code parentId}; it ends a moment after the receiver has answered. */
    SpanData attemptUnder(String parentId) {
        return await().atMost(Duration.ofSeconds(10))
                .until(
                        () -> spans.getFinishedSpanItems().stream()
                                .filter(s -> s.getKind() == SpanKind.CLIENT
                                        && s.getParentSpanId().equals(parentId))
                                .findFirst(),
                        Optional::isPresent)
                .orElseThrow();
    }

    SpanData byId(String spanId) {
        return spans.getFinishedSpanItems().stream()
                .filter(s -> s.getSpanId().equals(spanId))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no span " + spanId + " in " + spans.getFinishedSpanItems()));
    }

    SpanData named(String name) {
        return spans.getFinishedSpanItems().stream()
                .filter(s -> s.getName().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no span " + name + " in " + spans.getFinishedSpanItems()));
    }
}

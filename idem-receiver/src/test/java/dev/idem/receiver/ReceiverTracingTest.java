package dev.idem.receiver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.wire.SigningSecret;
import dev.idem.wire.WebhookSigner;
import dev.idem.wire.testing.MutableClock;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The span the receiver SDK runs each request in, with the SDK's in-memory exporter. */
class ReceiverTracingTest {
    static final String SECRET =
            "whsec_" + java.util.Base64.getEncoder().encodeToString("receiver-trace-secret-012345678".getBytes());
    static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("idem.inbox.outcome");

    final MutableClock clock = new MutableClock(Instant.parse("2026-11-29T09:00:00Z"));
    final Verifier verifier = Verifier.standardWebhooks(List.of(SECRET), Duration.ofMinutes(5), clock);
    final InMemorySpanExporter spans = InMemorySpanExporter.create();
    final OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder()
                    .addSpanProcessor(SimpleSpanProcessor.create(spans))
                    .build())
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
            .build();
    final Tracer sender = otel.getTracer("test-sender");

    @AfterEach
    void close() {
        otel.close();
    }

    Receiver receiver() {
        return Receiver.builder(verifier, new MemoryInbox(clock, Duration.ofMinutes(2)))
                .tracing(OpenTelemetryTracing.of(otel))
                .build();
    }

    /** A signed delivery as Idem sends it, inside the given attempt span's context. */
    Function<String, String> delivery(String id, byte[] body, Span attempt) {
        Map<String, String> h = new HashMap<>();
        long ts = clock.instant().getEpochSecond();
        h.put("webhook-id", id);
        h.put("webhook-timestamp", Long.toString(ts));
        h.put("webhook-signature", WebhookSigner.sign(SigningSecret.parse(SECRET), id, ts, body));
        h.put("idem-attempt", "2");
        h.put("idem-event-type", "invoice.paid");
        if (attempt != null) {
            otel.getPropagators()
                    .getTextMapPropagator()
                    .inject(Context.root().with(attempt), h, (carrier, k, v) -> carrier.put(k, v));
        }
        return name -> h.get(name.toLowerCase(java.util.Locale.ROOT));
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    SpanData only(String name) {
        return spans.getFinishedSpanItems().stream()
                .filter(s -> s.getName().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no span " + name + " in " + spans.getFinishedSpanItems()));
    }

    @Test
    void theHandlerRunsInAChildSpanOfTheAttemptThatSentTheDeliveryAndTheSpanSaysProcessed() throws Exception {
        Span attempt = sender.spanBuilder("POST").setSpanKind(SpanKind.CLIENT).startSpan();
        byte[] body = bytes("{\"n\":1}");
        Span[] inHandler = new Span[1];

        Receipt r = receiver().receive(delivery("dlv_1", body, attempt), body, d -> {
            inHandler[0] = Span.current();
            return null;
        });
        attempt.end();

        assertThat(r.status()).isEqualTo(Receipt.Status.PROCESSED);
        SpanData handler = only("process invoice.paid");
        assertThat(handler.getKind()).isEqualTo(SpanKind.CONSUMER);
        assertThat(handler.getTraceId()).isEqualTo(attempt.getSpanContext().getTraceId());
        assertThat(handler.getParentSpanId()).isEqualTo(attempt.getSpanContext().getSpanId());
        assertThat(handler.getAttributes().get(OUTCOME)).isEqualTo("processed");
        assertThat(handler.getAttributes().get(AttributeKey.stringKey("messaging.message.id")))
                .isEqualTo("dlv_1");
        assertThat(handler.getAttributes().get(AttributeKey.stringKey("messaging.system")))
                .isEqualTo("idem");
        assertThat(handler.getAttributes().get(AttributeKey.longKey("idem.delivery.attempt")))
                .isEqualTo(2L);
        // the application's own spans inside the handler become children of this one
        assertThat(inHandler[0].getSpanContext().getSpanId()).isEqualTo(handler.getSpanId());
    }

    @Test
    void aDuplicateGetsItsOwnSpanThatSaysDuplicateAndTheHandlerDoesNotRun() throws Exception {
        Receiver receiver = receiver();
        byte[] body = bytes("{\"n\":2}");
        Span first = sender.spanBuilder("POST").startSpan();
        receiver.receive(delivery("dlv_2", body, first), body, d -> "done");
        first.end();
        Span retry = sender.spanBuilder("POST").startSpan();
        int[] calls = {0};

        Receipt again = receiver.receive(delivery("dlv_2", body, retry), body, d -> "" + ++calls[0]);
        retry.end();

        assertThat(again.status()).isEqualTo(Receipt.Status.DUPLICATE);
        assertThat(calls[0]).isZero();
        List<SpanData> handled = spans.getFinishedSpanItems().stream()
                .filter(s -> s.getName().startsWith("process"))
                .toList();
        assertThat(handled).extracting(s -> s.getAttributes().get(OUTCOME)).containsExactly("processed", "duplicate");
        assertThat(handled.get(1).getParentSpanId())
                .isEqualTo(retry.getSpanContext().getSpanId());
    }

    @Test
    void aForgedSignatureIsASpanThatSaysRejected() throws Exception {
        byte[] body = bytes("{\"n\":3}");
        Function<String, String> good = delivery("dlv_3", body, null);
        Function<String, String> forged = n -> n.equalsIgnoreCase("webhook-signature") ? "v1,AAAA" : good.apply(n);

        assertThat(receiver().receive(forged, body, d -> null).status()).isEqualTo(Receipt.Status.REJECTED);

        SpanData span = only("process invoice.paid");
        assertThat(span.getAttributes().get(OUTCOME)).isEqualTo("rejected");
        assertThat(span.getParentSpanContext().isValid()).isFalse();
    }

    @Test
    void aHandlerThatThrowsEndsItsSpanAsAnErrorThatSaysFailed() {
        byte[] body = bytes("{\"n\":4}");

        assertThatThrownBy(() -> receiver().receive(delivery("dlv_4", body, null), body, d -> {
                    throw new IllegalStateException("no stock");
                }))
                .hasMessage("no stock");

        SpanData span = only("process invoice.paid");
        assertThat(span.getAttributes().get(OUTCOME)).isEqualTo("failed");
        assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(span.getEvents()).extracting(e -> e.getName()).contains("exception");
    }

    @Test
    void aSpanAlreadyCurrentFromTheWebFrameworkIsTheParentRatherThanTheHeader() throws Exception {
        Span attempt = sender.spanBuilder("POST").startSpan();
        byte[] body = bytes("{\"n\":5}");
        Function<String, String> headers = delivery("dlv_5", body, attempt);
        Span server = sender.spanBuilder("POST /hooks")
                .setParent(Context.root().with(attempt))
                .setSpanKind(SpanKind.SERVER)
                .startSpan();

        try (Scope ignored = server.makeCurrent()) {
            receiver().receive(headers, body, d -> null);
        }
        server.end();
        attempt.end();

        assertThat(only("process invoice.paid").getParentSpanId())
                .isEqualTo(server.getSpanContext().getSpanId());
    }

    @Test
    void withNothingRegisteredGloballyTheDefaultMakesNoSpanAndLeavesTheGlobalUnset() throws Exception {
        GlobalOpenTelemetry.resetForTest();
        Receiver receiver = Receiver.builder(verifier, new MemoryInbox(clock, Duration.ofMinutes(2)))
                .build();
        byte[] body = bytes("{\"n\":6}");
        Span[] inHandler = new Span[1];

        receiver.receive(delivery("dlv_6", body, null), body, d -> {
            inHandler[0] = Span.current();
            return null;
        });

        assertThat(inHandler[0].getSpanContext().isValid()).isFalse();
        // the application may still register its SDK afterwards: get() would have made that fail
        assertThat(GlobalOpenTelemetry.isSet()).isFalse();
        assertThat(spans.getFinishedSpanItems()).isEmpty();
    }

    @Test
    void theDefaultUsesTheSdkRegisteredGloballyOnceThereIsOne() throws Exception {
        GlobalOpenTelemetry.resetForTest();
        Receiver receiver = Receiver.builder(verifier, new MemoryInbox(clock, Duration.ofMinutes(2)))
                .build();
        byte[] body = bytes("{\"n\":7}");
        receiver.receive(delivery("dlv_7a", body, null), body, d -> null);
        GlobalOpenTelemetry.set(otel);
        try {
            Span attempt = sender.spanBuilder("POST").startSpan();
            receiver.receive(delivery("dlv_7b", body, attempt), body, d -> null);
            attempt.end();

            assertThat(only("process invoice.paid").getParentSpanId())
                    .isEqualTo(attempt.getSpanContext().getSpanId());
        } finally {
            GlobalOpenTelemetry.resetForTest();
        }
    }
}

package dev.idem.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idem.core.store.Store;
import dev.idem.store.testing.TestStores;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.semconv.HttpAttributes;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The creator's W3C trace context goes out on every attempt: as it came when tracing is off (and nothing is traced, not
 * even through an SDK registered globally), under Idem's own creation and ingest spans when it is on.
 */
class TracePropagationTest {
    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String CALLER_SPAN = "00f067aa0ba902b7";
    private static final String TRACEPARENT = "00-" + TRACE_ID + "-" + CALLER_SPAN + "-01";

    @TempDir
    Path dir;

    private final InMemorySpanExporter spans = InMemorySpanExporter.create();
    private final FinishedSpans finished = new FinishedSpans(spans);
    private Store store;
    private TestNode node;
    private LoopbackReceiver receiver;

    @AfterEach
    void close() {
        if (node != null) node.close();
        if (store != null) store.close();
        if (receiver != null) receiver.close();
        GlobalOpenTelemetry.resetForTest();
    }

    @Test
    void offACreatorsTraceContextReachesEveryAttemptUnchangedNoneIsMadeUpAndNothingIsTraced() throws Exception {
        OpenTelemetrySdk global = sdk();
        GlobalOpenTelemetry.set(global); // registered, yet an untraced node must not use it
        start(null);
        // every attempt fails: /traced is tried twice (the retry must carry the same context), the others once, so the
        // count each ends at does not depend on when a retry's jittered backoff falls
        receiver.status.set(500);
        String once = ",\"retry\":{\"max_attempts\":1}}";

        created(node.call(
                "POST",
                "/v1/schedules",
                "{\"endpoint\":\"" + receiver.url("/traced")
                        + "\",\"retry\":{\"max_attempts\":2,\"initial_backoff\":\"1s\"}}",
                Map.of("traceparent", TRACEPARENT, "tracestate", "vendor=abc")));
        created(node.call(
                "POST", "/v1/schedules", "{\"endpoint\":\"" + receiver.url("/untraced") + "\"" + once, Map.of()));
        created(node.call(
                "POST",
                "/v1/schedules",
                "{\"endpoint\":\"" + receiver.url("/malformed") + "\"" + once,
                Map.of("traceparent", "00-not-a-trace-01")));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> hits("/untraced").size() == 1
                        && hits("/malformed").size() == 1
                        && hits("/traced").size() == 2);

        assertThat(hits("/traced"))
                .allSatisfy(r -> {
                    assertThat(r.header("traceparent")).isEqualTo(TRACEPARENT);
                    assertThat(r.header("tracestate")).isEqualTo("vendor=abc");
                })
                .extracting(r -> r.header("Idem-Attempt"))
                .containsExactly("1", "2");
        assertThat(hits("/untraced"))
                .allSatisfy(r -> assertThat(r.header("traceparent")).isNull());
        assertThat(hits("/malformed"))
                .allSatisfy(r -> assertThat(r.header("traceparent")).isNull());
        global.getSdkTracerProvider().forceFlush();
        assertThat(spans.getFinishedSpanItems()).isEmpty();
    }

    @Test
    void onTheAttemptContinuesTheCreatorsTraceUnderIdemsRequestAndCreationSpans() throws Exception {
        OpenTelemetrySdk sdk = sdk();
        start(sdk);

        created(node.call(
                "POST",
                "/v1/schedules",
                "{\"endpoint\":\"" + receiver.url("/traced") + "\"}",
                Map.of("traceparent", TRACEPARENT)));
        created(node.call("POST", "/v1/schedules", "{\"endpoint\":\"" + receiver.url("/fresh") + "\"}", Map.of()));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> hits("/traced").size() == 1 && hits("/fresh").size() == 1);
        sdk.getSdkTracerProvider().forceFlush();

        List<SpanData> creations = spans.getFinishedSpanItems().stream()
                .filter(s -> s.getName().equals("create schedule"))
                .toList();
        assertThat(creations).hasSize(2);
        SpanData creation = creations.stream()
                .filter(s -> s.getTraceId().equals(TRACE_ID))
                .findFirst()
                .orElseThrow();
        SpanData request = finished.byId(creation.getParentSpanId());
        assertThat(request.getKind()).isEqualTo(SpanKind.SERVER);
        assertThat(request.getName()).isEqualTo("POST /v1/schedules");
        assertThat(request.getParentSpanId()).isEqualTo(CALLER_SPAN);
        assertThat(request.getAttributes().get(HttpAttributes.HTTP_ROUTE)).isEqualTo("/v1/schedules");
        assertThat(request.getAttributes().get(HttpAttributes.HTTP_RESPONSE_STATUS_CODE))
                .isEqualTo(201L);
        // the attempt is a CLIENT span under the creation, and what it sends names it
        SpanData attempt = finished.attemptUnder(creation.getSpanId());
        assertThat(attempt.getTraceId()).isEqualTo(TRACE_ID);
        assertThat(attempt.getAttributes().get(HttpAttributes.HTTP_RESPONSE_STATUS_CODE))
                .isEqualTo(200L);
        assertThat(hits("/traced").get(0).header("traceparent"))
                .isEqualTo("00-" + TRACE_ID + "-" + attempt.getSpanId() + "-01");

        // a request without a context starts a trace of its own, which its delivery carries
        SpanData fresh = creations.stream()
                .filter(s -> !s.getTraceId().equals(TRACE_ID))
                .findFirst()
                .orElseThrow();
        assertThat(finished.byId(fresh.getParentSpanId()).getParentSpanContext().isValid())
                .isFalse();
        assertThat(hits("/fresh").get(0).header("traceparent"))
                .startsWith("00-" + fresh.getTraceId() + "-"
                        + finished.attemptUnder(fresh.getSpanId()).getSpanId() + "-"); // flags: sampled, random id
    }

    @Test
    void offAMessageSendersTraceContextReachesEveryEndpointsAttemptUnchanged() throws Exception {
        start(null);
        created(node.call("POST", "/v1/endpoints", "{\"url\":\"" + receiver.url("/ep-a") + "\"}", Map.of()));
        created(node.call("POST", "/v1/endpoints", "{\"url\":\"" + receiver.url("/ep-b") + "\"}", Map.of()));
        created(node.call(
                "POST",
                "/v1/messages",
                "{\"event_type\":\"invoice.paid\",\"payload\":{\"id\":1}}",
                Map.of("traceparent", TRACEPARENT, "tracestate", "vendor=abc")));
        created(node.call(
                "POST", "/v1/messages", "{\"event_type\":\"invoice.voided\",\"payload\":{\"id\":2}}", Map.of()));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> hits("/ep-a").size() == 2 && hits("/ep-b").size() == 2);

        for (String path : List.of("/ep-a", "/ep-b")) {
            assertThat(hits(path))
                    .filteredOn(r -> r.header("Idem-Event-Type").equals("invoice.paid"))
                    .singleElement()
                    .satisfies(r -> {
                        assertThat(r.header("traceparent")).isEqualTo(TRACEPARENT);
                        assertThat(r.header("tracestate")).isEqualTo("vendor=abc");
                    });
            assertThat(hits(path))
                    .filteredOn(r -> r.header("Idem-Event-Type").equals("invoice.voided"))
                    .singleElement()
                    .satisfies(r -> assertThat(r.header("traceparent")).isNull());
        }
    }

    @Test
    void onEachEndpointsAttemptOfAMessageIsInTheSendersTraceUnderTheSendSpan() throws Exception {
        OpenTelemetrySdk sdk = sdk();
        start(sdk);
        created(node.call("POST", "/v1/endpoints", "{\"url\":\"" + receiver.url("/ep-a") + "\"}", Map.of()));
        created(node.call("POST", "/v1/endpoints", "{\"url\":\"" + receiver.url("/ep-b") + "\"}", Map.of()));
        created(node.call(
                "POST",
                "/v1/messages",
                "{\"event_type\":\"invoice.paid\",\"payload\":{\"id\":1}}",
                Map.of("traceparent", TRACEPARENT)));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> hits("/ep-a").size() == 1 && hits("/ep-b").size() == 1);
        sdk.getSdkTracerProvider().forceFlush();

        SpanData send = spans.getFinishedSpanItems().stream()
                .filter(sp ->
                        sp.getName().equals("send message") && sp.getTraceId().equals(TRACE_ID))
                .findFirst()
                .orElseThrow(() ->
                        new AssertionError("no send span in the caller's trace: " + spans.getFinishedSpanItems()));
        assertThat(finished.byId(send.getParentSpanId()).getParentSpanId()).isEqualTo(CALLER_SPAN);
        List<SpanData> attempts = await().atMost(Duration.ofSeconds(10))
                .until(
                        () -> spans.getFinishedSpanItems().stream()
                                .filter(sp -> sp.getKind() == SpanKind.CLIENT
                                        && sp.getParentSpanId().equals(send.getSpanId()))
                                .toList(),
                        l -> l.size() == 2);
        assertThat(attempts).allSatisfy(a -> assertThat(a.getTraceId()).isEqualTo(TRACE_ID));
        assertThat(List.of(
                        hits("/ep-a").get(0).header("traceparent"),
                        hits("/ep-b").get(0).header("traceparent")))
                .containsExactlyInAnyOrderElementsOf(attempts.stream()
                        .map(a -> "00-" + TRACE_ID + "-" + a.getSpanId() + "-01")
                        .toList());
    }

    @Test
    void onAProvidersTraceContextOnTheIngestRouteReachesTheForwardedEventUnderTheIngestSpan() throws Exception {
        OpenTelemetrySdk sdk = sdk();
        start(sdk);
        String source = created(node.call(
                        "POST",
                        "/v1/sources",
                        "{\"name\":\"shop\",\"verify\":{\"scheme\":\"hmac_sha256\",\"secret\":\"shop-secret\","
                                + "\"header\":\"X-Sig\"},\"destination\":\"" + receiver.url("/src") + "\"}",
                        Map.of()))
                .json()
                .get("id")
                .asText();
        ApiClientForTests.Reply in = node.api.call(
                "POST", "/in/" + source, null, "{}", Map.of("traceparent", TRACEPARENT, "X-Sig", hmacHex("{}")));
        assertThat(in.status()).as(in.raw()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(30)).until(() -> hits("/src").size() == 1);
        sdk.getSdkTracerProvider().forceFlush();

        SpanData ingest = spans.getFinishedSpanItems().stream()
                .filter(s -> s.getName().equals("ingest"))
                .findFirst()
                .orElseThrow();
        assertThat(ingest.getTraceId()).isEqualTo(TRACE_ID);
        assertThat(ingest.getAttributes().get(io.opentelemetry.api.common.AttributeKey.stringKey("idem.source.id")))
                .isEqualTo(source);
        assertThat(finished.byId(ingest.getParentSpanId()).getName()).isEqualTo("POST /in/{source_id}");
        assertThat(hits("/src").get(0).header("traceparent"))
                .isEqualTo("00-" + TRACE_ID + "-"
                        + finished.attemptUnder(ingest.getSpanId()).getSpanId() + "-01");
    }

    private static String hmacHex(String body) throws Exception {
        javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
        mac.init(new javax.crypto.spec.SecretKeySpec(
                "shop-secret".getBytes(java.nio.charset.StandardCharsets.UTF_8), "HmacSHA256"));
        return java.util.HexFormat.of().formatHex(mac.doFinal(body.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }

    private OpenTelemetrySdk sdk() {
        return OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder()
                        .addSpanProcessor(SimpleSpanProcessor.create(spans))
                        .build())
                .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
                .build();
    }

    private void start(OpenTelemetry otel) throws Exception {
        receiver = new LoopbackReceiver();
        store = TestStores.sqlite(dir, Clock.systemUTC());
        node = new TestNode(store, dir, Clock.systemUTC(), 0, otel);
    }

    private List<LoopbackReceiver.Received> hits(String path) {
        return receiver.requests.stream().filter(r -> r.path().equals(path)).toList();
    }

    private static ApiClientForTests.Reply created(ApiClientForTests.Reply r) {
        assertThat(r.status()).as(r.raw()).isEqualTo(201);
        return r;
    }
}

package dev.idem.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idem.core.store.DeliveryTraceRepository.DeliveryTrace;
import dev.idem.core.store.Store;
import dev.idem.store.testing.TestStores;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The links of a delivery's spans that the store keeps (docs/tracing.md): a retry made by another node links to the
 * first attempt; a replayed attempt links to the replay request and stays in the creator's trace; a scheduled fan-out's
 * occurrence and a test event each carry a creation context to their attempts. Real nodes on SQLite files, a loopback
 * receiver, the SDK's in-memory exporter.
 */
class TraceLinksTest {
    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String TRACEPARENT = "00-" + TRACE_ID + "-00f067aa0ba902b7-01";
    private static final AttributeKey<String> LINK = AttributeKey.stringKey("idem.link");
    private static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("idem.delivery.attempt");

    @TempDir
    Path dir;

    private final InMemorySpanExporter spans = InMemorySpanExporter.create();
    private final FinishedSpans finished = new FinishedSpans(spans);
    private final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder()
                    .addSpanProcessor(SimpleSpanProcessor.create(spans))
                    .build())
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
            .build();
    private final LoopbackReceiver receiver = start();
    private Store store;
    private TestNode node;

    private static LoopbackReceiver start() {
        try {
            return new LoopbackReceiver();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @AfterEach
    void close() {
        if (node != null) node.close();
        if (store != null) store.close();
        receiver.close();
        sdk.close();
    }

    private void startNode() {
        store = TestStores.sqlite(dir, Clock.systemUTC());
        node = new TestNode(store, dir, Clock.systemUTC(), 0, sdk);
    }

    @Test
    void aRetryMadeByAnotherNodeAfterTheFirstStoppedLinksToTheFirstAttempt() {
        startNode();
        receiver.status.set(503);
        // the retry is due in 5 s exactly (no jitter): node A is stopped well before
        receiver.responseHeaders.put("Retry-After", "5");
        created(node.call(
                "POST",
                "/v1/schedules",
                "{\"endpoint\":\"" + receiver.url("/retried")
                        + "\",\"retry\":{\"max_attempts\":2,\"initial_backoff\":\"1s\"}}",
                Map.of("traceparent", TRACEPARENT)));
        await().atMost(Duration.ofSeconds(30)).until(() -> hits("/retried").size() == 1);
        String deliveryId = hits("/retried").get(0).header("webhook-id");
        await().atMost(Duration.ofSeconds(10))
                .until(() ->
                        "retrying".equals(delivery(deliveryId).get("status").asText()));
        SpanData first = attempt(deliveryId, 1);
        // node A stops before the retry is due; node B, with a store of its own on the same file, makes it
        node.close();
        node = null;
        store.close();
        receiver.status.set(200);
        receiver.responseHeaders.clear();
        startNode();
        await().atMost(Duration.ofSeconds(30)).until(() -> hits("/retried").size() == 2);

        SpanData retry = attempt(deliveryId, 2);
        assertThat(linksOf(retry, "first_attempt")).singleElement().satisfies(l -> {
            assertThat(l.getSpanContext().getSpanId()).isEqualTo(first.getSpanId());
            assertThat(l.getSpanContext().getTraceId()).isEqualTo(first.getTraceId());
        });
        // both under the creator's trace, and the retry sends its own span
        assertThat(retry.getTraceId()).isEqualTo(TRACE_ID);
        assertThat(retry.getParentSpanId()).isEqualTo(first.getParentSpanId());
        assertThat(hits("/retried").get(1).header("traceparent"))
                .isEqualTo("00-" + TRACE_ID + "-" + retry.getSpanId() + "-01");
    }

    @Test
    void aReplayedAttemptLinksToTheReplayRequestAndStaysInTheCreatorsTrace() {
        startNode();
        created(node.call(
                "POST",
                "/v1/schedules",
                "{\"endpoint\":\"" + receiver.url("/once") + "\"}",
                Map.of("traceparent", TRACEPARENT)));
        await().atMost(Duration.ofSeconds(30)).until(() -> hits("/once").size() == 1);
        String deliveryId = hits("/once").get(0).header("webhook-id");
        await().atMost(Duration.ofSeconds(10))
                .until(() ->
                        "succeeded".equals(delivery(deliveryId).get("status").asText()));
        SpanData first = attempt(deliveryId, 1);

        assertThat(node.call("POST", "/v1/deliveries/" + deliveryId + "/replay", "{}")
                        .status())
                .isEqualTo(200);
        await().atMost(Duration.ofSeconds(30)).until(() -> hits("/once").size() == 2);

        SpanData replayed = attempt(deliveryId, 2);
        SpanData request = finished.named("replay delivery");
        assertThat(request.getTraceId()).isNotEqualTo(TRACE_ID); // the caller's, not the creator's
        assertThat(linksOf(replayed, "replay"))
                .singleElement()
                .satisfies(l -> assertThat(l.getSpanContext().getSpanId()).isEqualTo(request.getSpanId()));
        assertThat(linksOf(replayed, "first_attempt"))
                .singleElement()
                .satisfies(l -> assertThat(l.getSpanContext().getSpanId()).isEqualTo(first.getSpanId()));
        assertThat(replayed.getTraceId()).isEqualTo(TRACE_ID);
    }

    @Test
    void eachAttemptOfABulkReplayLinksToTheBulkReplayRequest() {
        startNode();
        receiver.status.set(500);
        for (String path : List.of("/dead-a", "/dead-b"))
            created(node.call(
                    "POST",
                    "/v1/schedules",
                    "{\"endpoint\":\"" + receiver.url(path) + "\",\"retry\":{\"max_attempts\":1}}",
                    Map.of("traceparent", TRACEPARENT)));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> hits("/dead-a").size() == 1 && hits("/dead-b").size() == 1);
        List<String> ids = List.of(
                hits("/dead-a").get(0).header("webhook-id"),
                hits("/dead-b").get(0).header("webhook-id"));
        await().atMost(Duration.ofSeconds(10))
                .until(() -> ids.stream()
                        .allMatch(id -> "dead".equals(delivery(id).get("status").asText())));
        receiver.status.set(200);

        var replay = node.call("POST", "/v1/deliveries/replay", "{\"status\":\"dead\"}");
        assertThat(replay.status()).as(replay.raw()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> hits("/dead-a").size() == 2 && hits("/dead-b").size() == 2);

        SpanData request = finished.named("replay deliveries");
        for (String id : ids)
            assertThat(linksOf(attempt(id, 2), "replay"))
                    .singleElement()
                    .satisfies(l -> assertThat(l.getSpanContext().getSpanId()).isEqualTo(request.getSpanId()));
    }

    @Test
    void aScheduledFanOutsOccurrenceAndATestEventEachReachTheirEndpointInATraceOfTheirCreation() {
        startNode();
        String endpoint = created(node.call("POST", "/v1/endpoints", "{\"url\":\"" + receiver.url("/ep") + "\"}"))
                .json()
                .get("id")
                .asText();
        created(node.call(
                "POST",
                "/v1/event-types",
                "{\"name\":\"report.daily\",\"description\":\"d\",\"example\":{\"report\":\"daily\"}}"));
        created(node.call(
                "POST",
                "/v1/schedules",
                "{\"target\":{\"event_type\":\"report.daily\"},\"delay\":\"1s\",\"payload\":{\"n\":1}}",
                Map.of("traceparent", TRACEPARENT)));
        await().atMost(Duration.ofSeconds(30)).until(() -> hits("/ep").size() == 1);
        // the occurrence: a create span under the schedule's creation, in the creator's trace, over the attempt
        SpanData occurrence = finished.named("create");
        assertThat(occurrence.getKind()).isEqualTo(SpanKind.PRODUCER);
        assertThat(occurrence.getTraceId()).isEqualTo(TRACE_ID);
        assertThat(finished.byId(occurrence.getParentSpanId()).getName()).isEqualTo("create schedule");
        SpanData fannedOut = finished.attemptUnder(occurrence.getSpanId());
        assertThat(hits("/ep").get(0).header("traceparent"))
                .isEqualTo("00-" + TRACE_ID + "-" + fannedOut.getSpanId() + "-01");

        var test = node.call(
                "POST", "/v1/endpoints/" + endpoint + "/send-test", "{\"event_type\":\"report.daily\"}", Map.of());
        assertThat(test.status()).as(test.raw()).isEqualTo(201);
        await().atMost(Duration.ofSeconds(30)).until(() -> hits("/ep").size() == 2);
        SpanData sent = finished.named("send test event");
        assertThat(finished.byId(sent.getParentSpanId()).getKind()).isEqualTo(SpanKind.SERVER);
        SpanData tested = finished.attemptUnder(sent.getSpanId());
        assertThat(hits("/ep").get(1).header("traceparent"))
                .startsWith("00-" + sent.getTraceId() + "-" + tested.getSpanId() + "-"); // flags: sampled, random id
    }

    @Test
    void offNothingIsKeptForTracingAndAFanOutsOccurrencePassesTheCreatorsContextOn() {
        store = TestStores.sqlite(dir, Clock.systemUTC());
        node = new TestNode(store, dir, Clock.systemUTC(), 0, null);
        created(node.call("POST", "/v1/endpoints", "{\"url\":\"" + receiver.url("/ep") + "\"}"));
        created(node.call(
                "POST",
                "/v1/schedules",
                "{\"target\":{\"event_type\":\"report.daily\"},\"delay\":\"1s\",\"payload\":{\"n\":1}}",
                Map.of("traceparent", TRACEPARENT)));
        receiver.status.set(500);
        created(node.call(
                "POST",
                "/v1/schedules",
                "{\"endpoint\":\"" + receiver.url("/retried")
                        + "\",\"retry\":{\"max_attempts\":2,\"initial_backoff\":\"1s\"}}"));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> hits("/retried").size() == 2 && hits("/ep").size() >= 1);
        String retried = hits("/retried").get(0).header("webhook-id");
        await().atMost(Duration.ofSeconds(10))
                .until(() -> "dead".equals(delivery(retried).get("status").asText()));
        receiver.status.set(200);
        assertThat(node.call("POST", "/v1/deliveries/" + retried + "/replay", "{}")
                        .status())
                .isEqualTo(200);
        await().atMost(Duration.ofSeconds(30)).until(() -> hits("/retried").size() == 3);

        assertThat(hits("/ep").get(0).header("traceparent")).isEqualTo(TRACEPARENT);
        assertThat(hits("/retried"))
                .allSatisfy(r -> assertThat(r.header("traceparent")).isNull());
        Set<String> ids = new java.util.HashSet<>();
        node.call("GET", "/v1/deliveries?limit=100", null)
                .json()
                .get("data")
                .forEach(d -> ids.add(d.get("id").asText()));
        assertThat(ids).hasSizeGreaterThanOrEqualTo(2).contains(retried);
        Map<String, DeliveryTrace> kept =
                store.inReadTransaction(tx -> tx.deliveryTraces().find(ids));
        assertThat(kept).isEmpty();
        assertThat(spans.getFinishedSpanItems()).isEmpty();
    }

    private com.fasterxml.jackson.databind.JsonNode delivery(String id) {
        return node.call("GET", "/v1/deliveries/" + id, null).json();
    }

    /** Attempt {@code number} of delivery {@code deliveryId}; it ends a moment after the receiver has answered. */
    private SpanData attempt(String deliveryId, long number) {
        return await().atMost(Duration.ofSeconds(10))
                .until(
                        () -> spans.getFinishedSpanItems().stream()
                                .filter(s -> s.getKind() == SpanKind.CLIENT
                                        && deliveryId.equals(
                                                s.getAttributes().get(AttributeKey.stringKey("idem.delivery.id")))
                                        && Long.valueOf(number)
                                                .equals(s.getAttributes().get(ATTEMPT)))
                                .findFirst(),
                        java.util.Optional::isPresent)
                .orElseThrow();
    }

    private static List<LinkData> linksOf(SpanData span, String what) {
        return span.getLinks().stream()
                .filter(l -> what.equals(l.getAttributes().get(LINK)))
                .toList();
    }

    private List<LoopbackReceiver.Received> hits(String path) {
        return receiver.requests.stream().filter(r -> r.path().equals(path)).toList();
    }

    private static ApiClientForTests.Reply created(ApiClientForTests.Reply r) {
        assertThat(r.status()).as(r.raw()).isEqualTo(201);
        return r;
    }
}

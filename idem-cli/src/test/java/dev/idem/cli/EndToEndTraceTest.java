package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.idem.client.IdemClient;
import dev.idem.client.IdemClientConfig;
import dev.idem.client.model.RetryPolicy;
import dev.idem.client.model.ScheduleCreate;
import dev.idem.client.outbox.IdemOutbox;
import dev.idem.client.outbox.OutboxRelay;
import dev.idem.core.store.Store;
import dev.idem.receiver.MemoryInbox;
import dev.idem.receiver.OpenTelemetryTracing;
import dev.idem.receiver.Receipt;
import dev.idem.receiver.Receiver;
import dev.idem.receiver.Verifier;
import dev.idem.server.IdemServer;
import dev.idem.server.ServerConfig;
import dev.idem.store.testing.TestStores;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.semconv.ErrorAttributes;
import io.opentelemetry.semconv.HttpAttributes;
import io.opentelemetry.semconv.ServerAttributes;
import io.opentelemetry.semconv.UrlAttributes;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteDataSource;

/**
 * One trace from a producer's transaction to the receiver's handler: the outbox keeps the producer's context with the
 * row, the relay's call carries it (not the relay's own), a node tracing with the SDK continues it (its request span,
 * then its creation span, whose context the schedule keeps), each attempt is a {@code CLIENT} span under the creation
 * (the retry linked to the failed first attempt), and the receiver SDK's handler spans are children of the attempts
 * that carried them; a replay's handler span says {@code duplicate}.
 */
class EndToEndTraceTest {
    private static final String KEY = "sk_test_trace_0123456789";
    private static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("idem.inbox.outcome");

    @TempDir
    Path dir;

    @Test
    void aProducersTraceGoesThroughTheOutboxRelayIdemsAttemptsAndRetryToTheReceiversHandler() throws Exception {
        InMemorySpanExporter spans = InMemorySpanExporter.create();
        OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder()
                        .addSpanProcessor(SimpleSpanProcessor.create(spans))
                        .build())
                .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
                .build();
        Store store = TestStores.sqlite(dir, Clock.systemUTC());
        IdemServer node = IdemServer.start(
                ServerConfig.builder()
                        .port(0)
                        .dataDir(dir)
                        .bootstrapKey(KEY)
                        .allowPrivateEndpoints(true)
                        .nodeId("trace-" + System.nanoTime())
                        .rateLimitPerSecond(0)
                        .engine(e -> e.pollInterval(Duration.ofMillis(100)))
                        .build(),
                store,
                false,
                Clock.systemUTC(),
                new SecureRandom(),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                otel);
        HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        try (otel;
                store;
                node) {
            IdemClient idem = IdemClient.create(
                    IdemClientConfig.builder(node.baseUrl()).apiKey(KEY).build());
            Receiver receiver = Receiver.builder(
                            Verifier.standardWebhooks(idem.signingSecret().secret()),
                            new MemoryInbox(Clock.systemUTC(), Duration.ofMinutes(5)))
                    .tracing(OpenTelemetryTracing.of(otel))
                    .build();
            AtomicInteger calls = new AtomicInteger();
            http.createContext("/hook", ex -> {
                try (ex) {
                    byte[] body = ex.getRequestBody().readAllBytes();
                    int status;
                    try {
                        Receipt r = receiver.receive(
                                name -> ex.getRequestHeaders().getFirst(name.toLowerCase(Locale.ROOT)), body, d -> {
                                    if (calls.incrementAndGet() == 1)
                                        throw new IllegalStateException("the first attempt fails");
                                    return null;
                                });
                        status = r.answer().status();
                    } catch (Exception e) {
                        status = 500;
                    }
                    ex.sendResponseHeaders(status, -1);
                }
            });
            http.start();

            // the producer writes the row in its transaction; the relay sends it later, inside a span of its own
            GlobalOpenTelemetry.resetForTest();
            GlobalOpenTelemetry.set(otel);
            SQLiteDataSource db = new SQLiteDataSource();
            db.setUrl("jdbc:sqlite:" + dir.resolve("app.db"));
            IdemOutbox outbox = IdemOutbox.builder().build();
            outbox.createTable(db);
            Tracer app = otel.getTracer("shop");
            Span producer = app.spanBuilder("place order").startSpan();
            try (Scope ignored = producer.makeCurrent();
                    Connection tx = db.getConnection()) {
                tx.setAutoCommit(false);
                outbox.enqueue(
                        tx,
                        ScheduleCreate.builder(
                                        "http://127.0.0.1:" + http.getAddress().getPort() + "/hook")
                                .retry(new RetryPolicy(2, "1s", null, null))
                                .build());
                tx.commit();
            } finally {
                producer.end();
            }
            Span relayRun = app.spanBuilder("relay run").startSpan();
            try (Scope ignored = relayRun.makeCurrent()) {
                assertThat(OutboxRelay.builder(outbox, db, idem).build().runOnce())
                        .isEqualTo(1);
            } finally {
                relayRun.end();
            }
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> handlerSpans(spans).size() == 2
                            && attemptSpans(spans).size() == 2);

            String traceId = producer.getSpanContext().getTraceId();
            List<SpanData> trace = spans.getFinishedSpanItems().stream()
                    .filter(s -> s.getTraceId().equals(traceId))
                    .toList();
            SpanData request = named(trace, "POST /v1/schedules");
            assertThat(request.getKind()).isEqualTo(SpanKind.SERVER);
            assertThat(request.getParentSpanId())
                    .isEqualTo(producer.getSpanContext().getSpanId());
            SpanData creation = named(trace, "create schedule");
            assertThat(creation.getParentSpanId()).isEqualTo(request.getSpanId());

            // Idem's attempts: CLIENT spans under the creation, the first failed, the retry linked to it
            List<SpanData> attempts = attemptSpans(spans);
            SpanData first = attempt(attempts, 1);
            SpanData retry = attempt(attempts, 2);
            assertThat(attempts).allSatisfy(a -> {
                assertThat(a.getTraceId()).isEqualTo(traceId);
                assertThat(a.getParentSpanId()).isEqualTo(creation.getSpanId());
                assertThat(a.getName()).isEqualTo("POST");
                assertThat(a.getAttributes().get(HttpAttributes.HTTP_REQUEST_METHOD))
                        .isEqualTo("POST");
                assertThat(a.getAttributes().get(UrlAttributes.URL_FULL))
                        .isEqualTo("http://127.0.0.1:" + http.getAddress().getPort() + "/hook");
                assertThat(a.getAttributes().get(ServerAttributes.SERVER_ADDRESS))
                        .isEqualTo("127.0.0.1");
                assertThat(a.getAttributes().get(ServerAttributes.SERVER_PORT))
                        .isEqualTo((long) http.getAddress().getPort());
                assertThat(a.getEvents())
                        .extracting(EventData::getName)
                        .contains("connection.acquired", "response.first_byte");
            });
            assertThat(first.getAttributes().get(HttpAttributes.HTTP_RESPONSE_STATUS_CODE))
                    .isEqualTo(500L);
            assertThat(first.getAttributes().get(ErrorAttributes.ERROR_TYPE)).isEqualTo("500");
            assertThat(first.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
            assertThat(retry.getAttributes().get(HttpAttributes.HTTP_RESPONSE_STATUS_CODE))
                    .isEqualTo(200L);
            assertThat(retry.getAttributes().get(HttpAttributes.HTTP_REQUEST_RESEND_COUNT))
                    .isEqualTo(1L);
            assertThat(retry.getLinks())
                    .extracting(l -> l.getSpanContext().getSpanId())
                    .containsExactly(first.getSpanId());

            // the receiver's handler spans: each a child of the attempt that carried it
            List<SpanData> handled = handlerSpans(spans);
            assertThat(handled).allSatisfy(h -> {
                assertThat(h.getTraceId()).isEqualTo(traceId);
                assertThat(h.getKind()).isEqualTo(SpanKind.CONSUMER);
            });
            assertThat(handler(handled, 1).getParentSpanId()).isEqualTo(first.getSpanId());
            assertThat(handler(handled, 1).getAttributes().get(OUTCOME)).isEqualTo("failed");
            assertThat(handler(handled, 2).getParentSpanId()).isEqualTo(retry.getSpanId());
            assertThat(handler(handled, 2).getAttributes().get(OUTCOME)).isEqualTo("processed");

            // a replay sends the delivery again with its key: the receiver's inbox knows it, the span says duplicate
            String deliveryId = first.getAttributes().get(AttributeKey.stringKey("idem.delivery.id"));
            idem.deliveries().replay(deliveryId);
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> handlerSpans(spans).size() == 3
                            && attemptSpans(spans).size() == 3);
            SpanData again = attempt(attemptSpans(spans), 3);
            SpanData duplicate = handler(handlerSpans(spans), 3);
            assertThat(duplicate.getParentSpanId()).isEqualTo(again.getSpanId());
            assertThat(duplicate.getAttributes().get(OUTCOME)).isEqualTo("duplicate");
            assertThat(calls).hasValue(2);
            writeTrace(spans, traceId);
        } finally {
            GlobalOpenTelemetry.resetForTest();
            http.stop(0);
        }
    }

    /**
     * With {@code -Didem.trace.json=FILE}, writes the trace as the OTLP JSON a file exporter writes (one
     * {@code ExportTraceServiceRequest}): the input of docs/tracing/waterfall.py.
     */
    private static void writeTrace(InMemorySpanExporter spans, String traceId) throws java.io.IOException {
        String file = System.getProperty("idem.trace.json");
        if (file == null) return;
        List<SpanData> trace = spans.getFinishedSpanItems().stream()
                .filter(s -> s.getTraceId().equals(traceId))
                .toList();
        try (var out = java.nio.file.Files.newOutputStream(Path.of(file))) {
            io.opentelemetry.exporter.internal.otlp.traces.TraceRequestMarshaler.create(trace)
                    .writeJsonTo(out);
        }
    }

    private static List<SpanData> attemptSpans(InMemorySpanExporter spans) {
        return spans.getFinishedSpanItems().stream()
                .filter(s -> s.getKind() == SpanKind.CLIENT
                        && s.getInstrumentationScopeInfo().getName().equals("dev.idem.engine")
                        && s.getAttributes().get(HttpAttributes.HTTP_REQUEST_METHOD) != null) // not a claim's
                .toList();
    }

    private static SpanData attempt(List<SpanData> attempts, long n) {
        return attempts.stream()
                .filter(a -> a.getAttributes().get(AttributeKey.longKey("idem.delivery.attempt")) == n)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no attempt " + n + " in " + attempts));
    }

    private static SpanData handler(List<SpanData> handled, long n) {
        return handled.stream()
                .filter(h -> h.getAttributes().get(AttributeKey.longKey("idem.delivery.attempt")) == n)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no handler span of attempt " + n + " in " + handled));
    }

    private static List<SpanData> handlerSpans(InMemorySpanExporter spans) {
        return spans.getFinishedSpanItems().stream()
                .filter(s -> s.getName().startsWith("process"))
                .toList();
    }

    private static SpanData named(List<SpanData> spans, String name) {
        return spans.stream()
                .filter(s -> s.getName().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no span " + name + " in " + spans));
    }
}

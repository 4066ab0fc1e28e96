package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.idem.client.IdemClient;
import dev.idem.client.IdemClientConfig;
import dev.idem.client.RequestOptions;
import dev.idem.client.model.RetryPolicy;
import dev.idem.client.model.ScheduleCreate;
import dev.idem.core.store.Store;
import dev.idem.receiver.MemoryInbox;
import dev.idem.receiver.OpenTelemetryTracing;
import dev.idem.receiver.Receipt;
import dev.idem.receiver.Receiver;
import dev.idem.receiver.Verifier;
import dev.idem.server.IdemServer;
import dev.idem.server.ServerConfig;
import dev.idem.store.testing.TestStores;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One trace from a client call to the receiver's handler: the Java client sends the caller's {@code traceparent}, a
 * node tracing with the SDK continues it (its request span, then its creation span, whose context the schedule keeps),
 * and each attempt carries that context to a receiver built with the receiver SDK, whose handler spans are children of
 * Idem's creation span in the caller's trace: the first attempt's (the handler failed), and the retry's.
 */
class EndToEndTraceTest {
    private static final String KEY = "sk_test_trace_0123456789";
    private static final String TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
    private static final String CALLER_SPAN = "b7ad6b7169203331";
    private static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("idem.inbox.outcome");

    @TempDir
    Path dir;

    @Test
    void aClientCallsTraceReachesTheReceiversHandlerThroughIdemsSpansOnEveryAttempt() throws Exception {
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

            idem.schedules()
                    .create(
                            ScheduleCreate.builder("http://127.0.0.1:"
                                            + http.getAddress().getPort() + "/hook")
                                    .retry(new RetryPolicy(2, "1s", null, null))
                                    .build(),
                            RequestOptions.none().withTraceContext("00-" + TRACE_ID + "-" + CALLER_SPAN + "-01", null));
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> handlerSpans(spans).size() == 2);

            List<SpanData> trace = spans.getFinishedSpanItems().stream()
                    .filter(s -> s.getTraceId().equals(TRACE_ID))
                    .toList();
            SpanData request = named(trace, "POST /v1/schedules");
            assertThat(request.getKind()).isEqualTo(SpanKind.SERVER);
            assertThat(request.getParentSpanId()).isEqualTo(CALLER_SPAN);
            SpanData creation = named(trace, "create schedule");
            assertThat(creation.getParentSpanId()).isEqualTo(request.getSpanId());
            List<SpanData> handled = handlerSpans(spans);
            assertThat(handled).allSatisfy(h -> {
                assertThat(h.getTraceId()).isEqualTo(TRACE_ID);
                assertThat(h.getParentSpanId()).isEqualTo(creation.getSpanId());
                assertThat(h.getKind()).isEqualTo(SpanKind.CONSUMER);
            });
            assertThat(handled)
                    .extracting(h -> h.getAttributes().get(OUTCOME))
                    .containsExactlyInAnyOrder("failed", "processed");
            assertThat(handled)
                    .extracting(h -> h.getAttributes().get(AttributeKey.longKey("idem.delivery.attempt")))
                    .containsExactlyInAnyOrder(1L, 2L);
        } finally {
            http.stop(0);
        }
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

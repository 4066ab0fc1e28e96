package dev.idem.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.idem.engine.EndpointGuard;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What the wire tells an attempt's span, against a loopback receiver reached by name (so a lookup happens). */
class AttemptSpanEventsTest {
    private final InMemoryTracing sdk = new InMemoryTracing();
    private HttpServer receiver;
    private HttpSender sender;

    @AfterEach
    void close() {
        if (sender != null) sender.close();
        if (receiver != null) receiver.stop(0);
        sdk.close();
    }

    @Test
    void aNewConnectionShowsLookupConnectAndFirstByteAndAReusedOneShowsOnlyItsReuseAndFirstByte() throws Exception {
        receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/hook", ex -> {
            try (ex) {
                ex.getRequestBody().readAllBytes();
                ex.sendResponseHeaders(204, -1);
            }
        });
        receiver.start();
        sender = new HttpSender(EndpointGuard.of(true), Clock.systemUTC(), 4, true);
        String url = "http://localhost:" + receiver.getAddress().getPort() + "/hook?token=secret";

        SpanData fresh = attempt(url);
        // the sender gives the connection back to its pool a moment after the callback: the next attempt may open
        // another one, so attempts go on until one reuses a connection (a pool of 4 runs out of new ones)
        SpanData reused = attempt(url);
        for (int i = 0; i < 20 && !reused(reused); i++) reused = attempt(url);

        assertThat(names(fresh)).containsExactly("connection.acquired", "dns", "connected", "response.first_byte");
        assertThat(fresh.getEvents().get(0).getAttributes().get(AttemptSpan.REUSED))
                .isFalse();
        assertThat(names(reused)).containsExactly("connection.acquired", "response.first_byte");
        assertThat(reused.getEvents().get(0).getAttributes().get(AttemptSpan.REUSED))
                .isTrue();
    }

    @Test
    void anUntracedSenderSendsWithoutASpan() throws Exception {
        receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/hook", ex -> {
            try (ex) {
                ex.sendResponseHeaders(204, -1);
            }
        });
        receiver.start();
        sender = new HttpSender(EndpointGuard.of(true), Clock.systemUTC(), 4);
        CompletableFuture<AttemptResult> done = new CompletableFuture<>();
        sender.send(
                request("http://localhost:" + receiver.getAddress().getPort() + "/hook"),
                Duration.ofSeconds(5),
                callback(done));
        assertThat(done.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(204);
        assertThat(sdk.spans()).isEmpty();
    }

    private SpanData attempt(String url) throws Exception {
        sdk.reset();
        AttemptSpan span =
                new AttemptSpan(sdk.otel().getTracer("test").spanBuilder("POST").startSpan());
        CompletableFuture<AttemptResult> done = new CompletableFuture<>();
        sender.send(request(url), Duration.ofSeconds(5), callback(done), span);
        AttemptResult r = done.get(10, TimeUnit.SECONDS);
        assertThat(r.statusCode()).isEqualTo(204);
        span.end(r);
        return sdk.spans().get(0);
    }

    private static DeliveryRequest request(String url) {
        return new DeliveryRequest(url, Map.of("Content-Type", "application/json"), "{}".getBytes());
    }

    private static HttpSender.Callback callback(CompletableFuture<AttemptResult> done) {
        return new HttpSender.Callback() {
            @Override
            public void completed(AttemptResult result) {
                done.complete(result);
            }

            @Override
            public void aborted() {
                done.completeExceptionally(new AssertionError("aborted"));
            }
        };
    }

    private static boolean reused(SpanData s) {
        return Boolean.TRUE.equals(s.getEvents().get(0).getAttributes().get(AttemptSpan.REUSED));
    }

    private static List<String> names(SpanData s) {
        return s.getEvents().stream().map(EventData::getName).toList();
    }
}

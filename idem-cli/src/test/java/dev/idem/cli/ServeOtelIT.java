package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code idem serve --otel} as a user runs it, configured by the standard {@code OTEL_*} variables: it exports its
 * spans as OTLP over HTTP (protobuf) to the collector they name, and the delivery of a schedule created with a
 * {@code traceparent} carries one in the same trace.
 */
class ServeOtelIT {
    private static final String KEY = "sk_test_otel_0123456789";
    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";

    @TempDir
    Path dir;

    /** What a loopback "collector" or receiver got: path, content type, traceparent header and body. */
    record Got(String path, String contentType, String traceparent, byte[] body) {}

    @Test
    void aNodeStartedWithOtelExportsItsSpansOverOtlpHttpAndItsDeliveryContinuesTheCreatorsTrace() throws Exception {
        List<Got> got = new CopyOnWriteArrayList<>();
        HttpServer loopback = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        loopback.createContext("/", ex -> {
            try (ex) {
                got.add(new Got(
                        ex.getRequestURI().getPath(),
                        ex.getRequestHeaders().getFirst("Content-Type"),
                        ex.getRequestHeaders().getFirst("traceparent"),
                        ex.getRequestBody().readAllBytes()));
                ex.sendResponseHeaders(200, -1);
            }
        });
        loopback.start();
        String base = "http://127.0.0.1:" + loopback.getAddress().getPort();
        int port = NodeProcess.freePort();
        try (NodeProcess node = NodeProcess.idem(
                dir.resolve("logs"),
                port,
                KEY,
                Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", base, "OTEL_BSP_SCHEDULE_DELAY", "100"),
                "serve",
                "--otel",
                "--port",
                Integer.toString(port),
                "--data-dir",
                dir.resolve("data").toString(),
                "--bootstrap-key",
                KEY,
                "--allow-private-endpoints")) {
            node.awaitReady();
            var created = java.net.http.HttpClient.newHttpClient()
                    .send(
                            java.net.http.HttpRequest.newBuilder(
                                            java.net.URI.create("http://127.0.0.1:" + port + "/v1/schedules"))
                                    .header("Authorization", "Bearer " + KEY)
                                    .header("traceparent", "00-" + TRACE_ID + "-00f067aa0ba902b7-01")
                                    .POST(java.net.http.HttpRequest.BodyPublishers.ofString(
                                            "{\"endpoint\":\"" + base + "/hook\"}"))
                                    .build(),
                            java.net.http.HttpResponse.BodyHandlers.ofString());
            assertThat(created.statusCode()).as(created.body()).isEqualTo(201);

            await().atMost(Duration.ofSeconds(60))
                    .until(() -> got.stream().anyMatch(g -> g.path().equals("/hook"))
                            && got.stream().anyMatch(g -> exportHolds(g, "create schedule")));
            Got hook = got.stream()
                    .filter(g -> g.path().equals("/hook"))
                    .findFirst()
                    .orElseThrow();
            assertThat(hook.traceparent()).startsWith("00-" + TRACE_ID + "-");
            Got export = got.stream()
                    .filter(g -> exportHolds(g, "create schedule"))
                    .findFirst()
                    .orElseThrow();
            assertThat(export.contentType()).isEqualTo("application/x-protobuf");
            assertThat(new String(export.body(), StandardCharsets.ISO_8859_1))
                    .as("the export holds the request span and the caller's trace id (16 bytes)")
                    .contains("POST /v1/schedules")
                    .contains(new String(HexFormat.of().parseHex(TRACE_ID), StandardCharsets.ISO_8859_1));
            assertThat(node.stop()).isEqualTo(143);
        } finally {
            loopback.stop(0);
        }
    }

    private static boolean exportHolds(Got g, String text) {
        return g.path().equals("/v1/traces") && new String(g.body(), StandardCharsets.ISO_8859_1).contains(text);
    }
}

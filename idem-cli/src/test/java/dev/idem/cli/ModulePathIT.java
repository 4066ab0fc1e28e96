package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node on the module path, where each of Idem's modules is sealed by its {@code module-info}: the store's
 * migrations, the dashboard's and portal's files, JSON mapping and schema validation must all work across module
 * boundaries, which the other tests (on the class path) cannot show. The command line is the one DEVELOPERS.md gives.
 */
class ModulePathIT {
    static final String KEY = "sk_test_modulepath_0123456789";
    final List<String> received = new CopyOnWriteArrayList<>();
    HttpServer receiver;

    @TempDir
    Path dir;

    @BeforeEach
    void receiver() throws IOException {
        receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/", ex -> {
            received.add(ex.getRequestURI().getPath() + " "
                    + new String(ex.getRequestBody().readAllBytes()));
            ex.sendResponseHeaders(204, -1);
            ex.close();
        });
        receiver.start();
    }

    @AfterEach
    void stop() {
        receiver.stop(0);
    }

    static String modulePath() throws IOException {
        Path deps = Path.of("target", "module-path");
        if (!Files.isDirectory(deps))
            throw new IllegalStateException(deps + " is made in the package phase; run the *IT tests with mvn verify");
        try (Stream<Path> jars = Files.list(Path.of("target"))) {
            Path cli = jars.filter(p -> p.getFileName().toString().matches("idem-cli-.*\\.jar"))
                    .filter(p -> !p.getFileName().toString().matches(".*-(sources|javadoc|tests)\\.jar"))
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException("no idem-cli jar in target"));
            return deps.toAbsolutePath() + java.io.File.pathSeparator + cli.toAbsolutePath();
        }
    }

    @Test
    void aNodeOnTheModulePathMigratesServesItsPagesValidatesAndDelivers() throws Exception {
        int port = NodeProcess.freePort();
        List<String> command = NodeProcess.javaCommand(
                "-p",
                modulePath(),
                "--add-modules",
                "ALL-MODULE-PATH",
                "-m",
                "idem.cli/dev.idem.cli.IdemCommand",
                "serve",
                "--port",
                String.valueOf(port),
                "--data-dir",
                dir.resolve("data").toString(),
                "--bootstrap-key",
                KEY,
                "--allow-private-endpoints");
        try (NodeProcess node = NodeProcess.start(command, dir.resolve("logs"), port, KEY, Map.of(), dir)) {
            node.awaitReady();
            String receiverUrl = "http://127.0.0.1:" + receiver.getAddress().getPort();

            assertThat(node.post(
                                    "/v1/schedules",
                                    "{\"endpoint\":\"" + receiverUrl + "/one-shot\",\"payload\":{\"n\":1}}")
                            .statusCode())
                    .isEqualTo(201);
            assertThat(node.post(
                                    "/v1/event-types",
                                    "{\"name\":\"invoice.paid\",\"schema\":{\"type\":\"object\",\"required\":[\"id\"]}}")
                            .statusCode())
                    .isEqualTo(201);
            assertThat(node.post("/v1/endpoints", "{\"url\":\"" + receiverUrl + "/endpoint\"}")
                            .statusCode())
                    .isEqualTo(201);
            var refused = node.post("/v1/messages", "{\"event_type\":\"invoice.paid\",\"payload\":{\"other\":1}}");
            assertThat(refused.statusCode()).isEqualTo(400);
            assertThat(refused.body()).contains("required property 'id' not found");
            assertThat(node.post("/v1/messages", "{\"event_type\":\"invoice.paid\",\"payload\":{\"id\":\"in_1\"}}")
                            .statusCode())
                    .isEqualTo(201);

            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertThat(received)
                            .containsExactlyInAnyOrder("/one-shot {\"n\":1}", "/endpoint {\"id\":\"in_1\"}"));
            assertThat(node.get("/").body()).contains("<html");
            assertThat(node.get("/portal/").body()).contains("<html");
            assertThat(node.get("/openapi.json").body()).contains("\"openapi\"");
            assertThat(node.get("/metrics").body()).contains("idem_attempt_duration_seconds");
            assertThat(node.stderrLines()).noneMatch(l -> l.contains("unexpected error"));
        }
    }
}

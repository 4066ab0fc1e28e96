package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.idem.wire.SigningSecret;
import dev.idem.wire.StandardWebhooksVerifier;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fat jar as a user runs it: {@code idem serve} on embedded SQLite in a fresh data directory, a
 * schedule taken over HTTP and delivered signed to a real loopback receiver; and a node killed with
 * SIGKILL right after acknowledging a schedule still delivers it after a restart.
 */
class ServeEndToEndIT {
    static final String KEY = "sk_test_e2e_0123456789";
    static final ObjectMapper JSON = new ObjectMapper();
    final HttpClient http = HttpClient.newHttpClient();
    final List<Map<String, String>> received = new CopyOnWriteArrayList<>();
    final List<byte[]> bodies = new CopyOnWriteArrayList<>();
    HttpServer receiver;
    Process node;
    int port;

    @TempDir
    Path dataDir;

    @BeforeEach
    void receiver() throws IOException {
        receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/", ex -> {
            Map<String, String> h = new java.util.TreeMap<>(String.CASE_INSENSITIVE_ORDER);
            ex.getRequestHeaders().forEach((k, v) -> h.put(k, v.get(0)));
            bodies.add(ex.getRequestBody().readAllBytes());
            received.add(h);
            ex.sendResponseHeaders(ex.getRequestURI().getPath().startsWith("/fails") ? 500 : 204, -1);
            ex.close();
        });
        receiver.start();
    }

    @AfterEach
    void stop() {
        if (node != null) node.destroyForcibly();
        receiver.stop(0);
    }

    Path nodeLog() {
        return dataDir.resolveSibling(dataDir.getFileName() + "-node.log");
    }

    Process startNode() throws IOException {
        Path jar = Path.of("target", "idem.jar");
        assertThat(jar).as("the fat jar is built in the package phase").exists();
        ProcessBuilder pb = new ProcessBuilder(NodeProcess.javaCommand(
                "-jar",
                jar.toString(),
                "serve",
                "--port",
                Integer.toString(port),
                "--data-dir",
                dataDir.toString(),
                "--bootstrap-key",
                KEY,
                "--allow-private-endpoints",
                "--node-id",
                "e2e"));
        pb.environment().keySet().removeIf(k -> k.startsWith("IDEM_"));
        pb.redirectErrorStream(true).redirectOutput(nodeLog().toFile());
        Process p = pb.start();
        await().atMost(Duration.ofSeconds(60))
                .ignoreExceptions()
                .until(() -> get("/readyz").statusCode() == 200);
        return p;
    }

    HttpResponse<String> get(String path) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .header("Authorization", "Bearer " + KEY)
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> post(String path, String body) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .header("Authorization", "Bearer " + KEY)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aFreshNodeTakesAScheduleAndDeliversItSigned() throws Exception {
        port = freePort();
        node = startNode();
        assertThat(Files.exists(dataDir.resolve("idem.db"))).isTrue();
        // its output goes to a file, as a service manager's does: the keys are in an owner-only file, not in the log
        Path keys = dataDir.toAbsolutePath().resolve("first-start-keys.txt");
        await().atMost(Duration.ofSeconds(10))
                .until(() -> Files.readString(nodeLog())
                        .contains("Created project 'default'. Its API keys are in " + keys
                                + " (readable by this user only): store them, then delete the file."));
        assertThat(Files.readString(nodeLog())).doesNotContain("sk_live_", KEY);
        assertThat(java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(keys)))
                .isEqualTo("rw-------");
        String liveKey = Files.readAllLines(keys).stream()
                .filter(l -> l.startsWith("live key: sk_live_"))
                .findFirst()
                .orElseThrow()
                .substring("live key: ".length());
        assertThat(Files.readString(keys)).contains("test key: " + KEY);
        var liveStats = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/stats"))
                        .header("Authorization", "Bearer " + liveKey)
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(liveStats.statusCode())
                .as("the file's live key is the node's")
                .isEqualTo(200);
        String endpoint = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hooks";
        var created = post(
                "/v1/schedules",
                "{\"endpoint\":\"" + endpoint + "\",\"delay\":\"1s\",\"payload\":{\"hello\":\"world\"}}");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        await().atMost(Duration.ofSeconds(20)).until(() -> !received.isEmpty());
        String secret =
                JSON.readTree(get("/v1/signing-secret").body()).get("secret").asText();
        Map<String, String> h = received.get(0);
        var verifier = new StandardWebhooksVerifier(
                List.of(SigningSecret.parse(secret)), StandardWebhooksVerifier.DEFAULT_TOLERANCE, Clock.systemUTC());
        assertThat(verifier.verify(
                                h.get("webhook-id"),
                                h.get("webhook-timestamp"),
                                h.get("webhook-signature"),
                                bodies.get(0))
                        .valid())
                .isTrue();
        assertThat(new String(bodies.get(0))).isEqualTo("{\"hello\":\"world\"}");
        await().atMost(Duration.ofSeconds(10))
                .until(() -> JSON.readTree(
                                get("/v1/deliveries/" + h.get("webhook-id")).body())
                        .get("status")
                        .asText()
                        .equals("succeeded"));
    }

    @Test
    void anAcknowledgedScheduleSurvivesSigkillOfTheNode() throws Exception {
        port = freePort();
        node = startNode();
        String endpoint = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hooks";
        var created = post("/v1/schedules", "{\"endpoint\":\"" + endpoint + "\",\"delay\":\"3s\"}");
        assertThat(created.statusCode()).isEqualTo(201);
        JsonNode schedule = JSON.readTree(created.body());
        node.destroyForcibly().waitFor();
        assertThat(received).isEmpty();
        node = startNode();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> received.stream()
                        .anyMatch(h -> schedule.get("id").asText().equals(h.get("Idem-Schedule-Id"))));
    }

    @Test
    void theReadyLineNamesTheUrlsAndTheLogSaysOnceWhenADeliveryDiesAndWhenAScheduleStopsItself() throws Exception {
        port = freePort();
        node = startNode();
        String base = "http://127.0.0.1:" + port;
        await().atMost(Duration.ofSeconds(10))
                .until(() -> Files.readString(nodeLog()).contains("idem is ready"));
        assertThat(Files.readString(nodeLog())
                        .lines()
                        .filter(l -> l.startsWith("idem is ready"))
                        .toList())
                .containsExactly("idem is ready: API " + base + "/v1, dashboard " + base + "/, metrics " + base
                        + "/metrics, OpenAPI " + base + "/openapi.json (Ctrl-C to stop)");

        String endpoint = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/fails";
        var created = post(
                "/v1/schedules",
                "{\"endpoint\":\"" + endpoint + "\",\"rrule\":\"FREQ=SECONDLY\",\"auto_pause_after\":2,"
                        + "\"retry\":{\"max_attempts\":1}}");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        String id = JSON.readTree(created.body()).get("id").asText();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> JSON.readTree(get("/v1/schedules/" + id).body())
                        .get("status")
                        .asText()
                        .equals("paused"));
        JsonNode dead = JSON.readTree(
                        get("/v1/deliveries?schedule_id=" + id + "&status=dead").body())
                .get("data");
        assertThat(dead).hasSizeGreaterThanOrEqualTo(2);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            List<String> log = Files.readString(nodeLog()).lines().toList();
            for (JsonNode d : dead) {
                String dlv = d.get("id").asText();
                assertThat(log.stream()
                                .filter(l -> l.contains("delivery " + dlv + " of schedule " + id
                                        + " is dead after 1 attempt(s), last error: HTTP 500")))
                        .as(dlv)
                        .hasSize(1);
            }
            assertThat(log.stream()
                            .filter(l ->
                                    l.contains("schedule " + id + " paused itself after 2 failed attempts in a row")))
                    .hasSize(1);
        });
    }

    @Test
    void onATerminalTheFirstStartPrintsTheKeysAndASecondServeOnTheDataDirectoryIsRefused() throws Exception {
        port = freePort();
        // script(1) gives the node a terminal, as a person starting ./idem serve has
        List<String> serve = List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar",
                Path.of("target", "idem.jar").toAbsolutePath().toString(),
                "serve",
                "--port",
                Integer.toString(port),
                "--data-dir",
                dataDir.toAbsolutePath().toString());
        ProcessBuilder pb = new ProcessBuilder(
                "script",
                "-qec",
                String.join(" ", serve.stream().map(a -> "'" + a + "'").toList()),
                "/dev/null");
        pb.environment().keySet().removeIf(k -> k.startsWith("IDEM_"));
        pb.redirectErrorStream(true).redirectOutput(nodeLog().toFile());
        node = pb.start();
        try {
            await().atMost(Duration.ofSeconds(60))
                    .ignoreExceptions()
                    .until(() -> Files.readString(nodeLog()).contains("idem is ready"));
            assertThat(Files.readString(nodeLog()))
                    .contains("Created project 'default'. These API keys are shown once; store them now:")
                    .containsPattern("  test key: sk_test_\\S+")
                    .containsPattern("  live key: sk_live_\\S+");
            assertThat(dataDir.resolve("first-start-keys.txt")).doesNotExist();

            // a second node on the same SQLite data directory (on another port) refuses in one line, exit 2
            int other = freePort();
            ProcessBuilder second = new ProcessBuilder(new java.util.ArrayList<>(serve.subList(0, 4)));
            second.command().addAll(List.of("--port", Integer.toString(other), "--data-dir", dataDir.toString()));
            second.environment().keySet().removeIf(k -> k.startsWith("IDEM_"));
            Path out = dataDir.resolveSibling(dataDir.getFileName() + "-second.out");
            Path err = dataDir.resolveSibling(dataDir.getFileName() + "-second.err");
            Process p = second.redirectOutput(out.toFile())
                    .redirectError(err.toFile())
                    .start();
            assertThat(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).isEqualTo(2);
            List<String> lines =
                    Files.readAllLines(err).stream().filter(l -> !l.isBlank()).toList();
            assertThat(lines.get(0))
                    .startsWith("idem: data directory " + dataDir.toAbsolutePath()
                            + " is in use by another idem serve (pid ")
                    .endsWith("): each node needs its own data directory (--data-dir, IDEM_DATA_DIR), or one "
                            + "PostgreSQL database for several nodes (--database-url)");
            assertThat(String.join("\n", lines)).doesNotContain("\tat ", "Exception");
            assertThat(Files.readString(out)).isEmpty();
            assertThat(get("/readyz").statusCode())
                    .as("the first node serves on")
                    .isEqualTo(200);
        } finally {
            node.descendants().forEach(ProcessHandle::destroyForcibly);
        }
    }

    /** Runs {@code idem <args>} in this JVM against the node; returns the exit code, output and errors. */
    record Cli(int code, String out, String err) {}

    Cli idem(String... args) {
        java.io.StringWriter out = new java.io.StringWriter();
        java.io.StringWriter err = new java.io.StringWriter();
        java.util.List<String> all = new java.util.ArrayList<>(List.of(args));
        all.addAll(List.of("--url", "http://127.0.0.1:" + port, "--api-key", KEY));
        int code = IdemCommand.commandLine()
                .setOut(new java.io.PrintWriter(out))
                .setErr(new java.io.PrintWriter(err))
                .execute(all.toArray(new String[0]));
        return new Cli(code, out.toString(), err.toString());
    }

    @Test
    void theSchedulesCommandsGetPauseResumeAndDeleteOnTheRunningNode() throws Exception {
        port = freePort();
        node = startNode();
        String endpoint = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hooks";
        String id = JSON.readTree(post("/v1/schedules", "{\"endpoint\":\"" + endpoint + "\",\"cron\":\"0 3 * * *\"}")
                        .body())
                .get("id")
                .asText();

        Cli got = idem("schedules", "get", id, "--json");
        assertThat(got.code()).as(got.err()).isZero();
        assertThat(JSON.readTree(got.out()).get("status").asText()).isEqualTo("active");
        Cli paused = idem("schedules", "pause", id, "--json");
        assertThat(JSON.readTree(paused.out()).get("status").asText())
                .as(paused.err())
                .isEqualTo("paused");
        Cli resumed = idem("schedules", "resume", id, "--json");
        assertThat(JSON.readTree(resumed.out()).get("status").asText())
                .as(resumed.err())
                .isEqualTo("active");
        Cli deleted = idem("schedules", "delete", id, "--json");
        assertThat(JSON.readTree(deleted.out()).get("status").asText())
                .as(deleted.err())
                .isEqualTo("deleted");
        Cli missing = idem("schedules", "get", "sch_missing");
        assertThat(missing.code()).isEqualTo(1);
        assertThat(missing.err().lines().toList())
                .singleElement()
                .asString()
                .startsWith("idem: ")
                .contains("sch_missing", "(HTTP 404, not_found_error/resource_missing", ", request req_");
        Cli noId = idem("schedules", "pause");
        assertThat(noId.code()).isEqualTo(2);
        assertThat(noId.err()).contains("ID");
    }

    @Test
    void schedulesCreateFromAJsonLinesFileSendsBatchesAndExits1WhenAnItemFails(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        port = freePort();
        node = startNode();
        String endpoint = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hooks";
        java.nio.file.Path good = dir.resolve("good.jsonl");
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < 1_001; i++)
            lines.append("{\"endpoint\":\"").append(endpoint).append("\",\"fire_at\":\"2035-01-01T00:00:00Z\"}\n\n");
        java.nio.file.Files.writeString(good, lines);
        Cli created = idem("schedules", "create", "--file", good.toString());
        assertThat(created.code()).as(created.err()).isZero();
        assertThat(created.out()).contains("created 1000, failed 0", "created 1, failed 0");
        java.nio.file.Path mixed = dir.resolve("mixed.jsonl");
        java.nio.file.Files.writeString(mixed, "{\"endpoint\":\"" + endpoint + "\"}\n{\"endpoint\":\"ftp://x\"}\n");
        Cli partly = idem("schedules", "create", "--file", mixed.toString());
        assertThat(partly.code()).isEqualTo(1);
        assertThat(partly.out()).contains("endpoint_invalid");
        java.nio.file.Files.writeString(mixed, "{\"endpoint\":\"" + endpoint + "\"}\nnot json\n");
        Cli bad = idem("schedules", "create", "--file", mixed.toString());
        assertThat(bad.code()).isEqualTo(2);
        assertThat(bad.err()).contains("line 2");
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}

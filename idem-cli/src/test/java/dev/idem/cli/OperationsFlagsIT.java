package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * {@code idem serve --log-format} and {@code --retention} (docs/operations.md) through the fat jar: JSON log lines
 * with the delivery's and schedule's ids as fields, finished deliveries pruned past the retention given and kept
 * within it, and bad values refused before anything starts.
 */
// beside the other classes marked so (idem-cli's failsafe configuration): its tests wait on node processes, timers
// and receivers, each in its own directory and database on its own ports
@Execution(ExecutionMode.CONCURRENT)
class OperationsFlagsIT {
    static final String KEY = "sk_test_ops_0123456789";
    static final ObjectMapper JSON = new ObjectMapper();
    final List<NodeProcess> nodes = new ArrayList<>();
    HttpServer receiver;

    @TempDir
    Path tmp;

    @BeforeEach
    void receiver() throws IOException {
        receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/", ex -> {
            ex.getRequestBody().readAllBytes();
            ex.sendResponseHeaders(ex.getRequestURI().getPath().startsWith("/fail") ? 500 : 204, -1);
            ex.close();
        });
        receiver.start();
    }

    @AfterEach
    void stop() {
        nodes.forEach(NodeProcess::close);
        receiver.stop(0);
    }

    NodeProcess serve(Map<String, String> env, String... flags) throws IOException {
        int port = NodeProcess.freePort();
        List<String> args = new ArrayList<>(List.of(
                "serve",
                "--port",
                Integer.toString(port),
                "--data-dir",
                tmp.resolve("data").toString(),
                "--bootstrap-key",
                KEY,
                "--allow-private-endpoints"));
        args.addAll(List.of(flags));
        NodeProcess node = NodeProcess.idem(tmp.resolve("logs"), port, KEY, env, args.toArray(new String[0]));
        nodes.add(node);
        return node.awaitReady();
    }

    String endpoint(String path) {
        return "http://127.0.0.1:" + receiver.getAddress().getPort() + path;
    }

    /** Creates a one-shot schedule due now and returns its delivery once it reached {@code status}. */
    JsonNode deliveredOnce(NodeProcess node, String path, String status) throws Exception {
        var created = node.post(
                "/v1/schedules",
                "{\"endpoint\":\"" + endpoint(path) + "\",\"delay\":\"0s\",\"retry\":{\"max_attempts\":1}}");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        String scheduleId = JSON.readTree(created.body()).get("id").asText();
        JsonNode[] delivery = new JsonNode[1];
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            JsonNode list = JSON.readTree(
                            node.get("/v1/deliveries?schedule_id=" + scheduleId).body())
                    .get("data");
            delivery[0] = list.isEmpty() ? null : list.get(0);
            return delivery[0] != null && delivery[0].get("status").asText().equals(status);
        });
        return delivery[0];
    }

    @Test
    void jsonLogLinesCarryTheDeadDeliveryAndItsScheduleAsFields() throws Exception {
        NodeProcess node = serve(Map.of(), "--log-format", "json", "--node-id", "ops-json");
        JsonNode dead = deliveredOnce(node, "/fail", "dead");
        String deliveryId = dead.get("id").asText();
        String scheduleId = dead.get("schedule_id").asText();

        await().atMost(Duration.ofSeconds(10))
                .until(() -> node.stderrLines().stream().anyMatch(l -> l.contains(deliveryId)));
        assertThat(node.stop()).as("exit after SIGTERM").isIn(0, 143);
        List<JsonNode> lines = new ArrayList<>();
        for (String line : node.stderrLines())
            lines.add(JSON.readTree(line)); // throws unless every line is one JSON object
        assertThat(lines).allSatisfy(l -> {
            assertThat(l.isObject()).isTrue();
            assertThat(l.get("node_id").asText()).isEqualTo("ops-json");
            assertThat(l.has("@timestamp") && l.has("level") && l.has("message") && l.has("logger_name"))
                    .as(l.toString())
                    .isTrue();
        });
        // other lines may carry the delivery too (a failing path's throttling is logged in its context): the line
        // that says it died is the one to check
        JsonNode deadLine = lines.stream()
                .filter(l -> deliveryId.equals(l.path("delivery_id").asText()))
                .filter(l -> l.path("message").asText().contains(" is dead"))
                .findFirst()
                .orElseThrow();
        assertThat(deadLine.get("level").asText()).isEqualTo("WARN");
        assertThat(deadLine.get("schedule_id").asText()).isEqualTo(scheduleId);
        assertThat(deadLine.get("message").asText()).contains(deliveryId, "dead");
        assertThat(lines).anySatisfy(l -> assertThat(l.get("message").asText()).contains("stopped"));
        assertThat(Files.readString(node.stdout))
                .as("stdout keeps where the first start's keys are, and the ready line, for people; never a key")
                .contains("Created project 'default'. Its API keys are in ", "idem is ready")
                .doesNotContain(KEY, "sk_live_")
                .doesNotStartWith("{");
    }

    @Test
    void finishedDeliveriesOlderThanTheRetentionArePrunedAndYoungerOnesKept() throws Exception {
        NodeProcess first = serve(Map.of());
        JsonNode old = deliveredOnce(first, "/ok", "succeeded");
        JsonNode young = deliveredOnce(first, "/fail", "dead");
        assertThat(first.stderrLines().get(0))
                .as("text logs are the default")
                .doesNotStartWith("{")
                .contains("finished deliveries kept 30d");
        first.stop();

        long now = System.currentTimeMillis();
        try (Connection c = DriverManager.getConnection(
                        "jdbc:sqlite:" + tmp.resolve("data").resolve("idem.db"));
                PreparedStatement age = c.prepareStatement("UPDATE deliveries SET updated_at = ? WHERE id = ?")) {
            finishedAgo(age, old.get("id").asText(), now - TimeUnit.HOURS.toMillis(4));
            finishedAgo(age, young.get("id").asText(), now - TimeUnit.HOURS.toMillis(2));
        }

        NodeProcess second = serve(Map.of(), "--retention", "3h");
        assertThat(second.stderrLines().get(0)).contains("finished deliveries kept 3h");
        // the pruner's first run is 30 s after start
        await().atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofSeconds(1))
                .until(() ->
                        second.get("/v1/deliveries/" + old.get("id").asText()).statusCode() == 404);
        var kept = second.get("/v1/deliveries/" + young.get("id").asText());
        assertThat(kept.statusCode())
                .as("finished 2 h ago, within the 3 h retention")
                .isEqualTo(200);
        assertThat(JSON.readTree(kept.body()).get("status").asText()).isEqualTo("dead");
    }

    static void finishedAgo(PreparedStatement update, String deliveryId, long millis) throws SQLException {
        update.setLong(1, millis);
        update.setString(2, deliveryId);
        assertThat(update.executeUpdate()).isEqualTo(1);
    }

    @Test
    void badValuesOfTheNewFlagsAreUsageErrorsThatCreateNothing() throws Exception {
        assertRefused(Map.of(), "Invalid value for option '--log-format'", "--log-format", "xml");
        assertRefused(Map.of(), "retention must be at least 1h", "--retention", "5m");
        assertRefused(Map.of(), "is not a duration", "--retention", "soon");
        assertRefused(Map.of("IDEM_RETENTION", "0d"), "retention must be at least 1h");
        assertRefused(Map.of("IDEM_LOG_FORMAT", "yaml"), "Invalid value for option '--log-format'");
        assertRefused(
                Map.of(), "--max-in-flight must be between 1 and 1000000 deliveries, got 0", "--max-in-flight", "0");
        assertRefused(Map.of("IDEM_MAX_IN_FLIGHT", "lots"), "'lots' is not a whole number");
    }

    void assertRefused(Map<String, String> env, String message, String... flags) throws Exception {
        Path data = tmp.resolve("refused");
        List<String> args = new ArrayList<>(
                List.of("serve", "--port", Integer.toString(NodeProcess.freePort()), "--data-dir", data.toString()));
        args.addAll(List.of(flags));
        try (NodeProcess node = NodeProcess.idem(tmp.resolve("logs"), 0, KEY, env, args.toArray(new String[0]))) {
            assertThat(node.process.waitFor(60, TimeUnit.SECONDS)).isTrue();
            String err = Files.readString(node.stderr);
            assertThat(node.process.exitValue()).as(err).isEqualTo(2);
            assertThat(err).contains(message).doesNotContain("\tat ");
            assertThat(data).as("nothing was created").doesNotExist();
        }
    }
}

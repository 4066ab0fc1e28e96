package dev.idem.examples.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * End to end: a real Idem node (the fat jar, as a user runs it) delivers to this example receiver, then every
 * delivery is replayed twice, concurrently, so the receiver sees each key three times. Effects are counted in
 * the receiver's own table: exactly one per delivery.
 */
class IdemToServletReceiverIT {
    static final String KEY = "sk_test_example_e2e_0123";
    static final ObjectMapper JSON = new ObjectMapper();
    static final int SCHEDULES = 40;
    final HttpClient http = HttpClient.newHttpClient();
    int idemPort;

    @Test
    void eachDeliveryHasExactlyOneEffectThoughTheReceiverSeesItThreeTimes(@TempDir Path dir) throws Exception {
        idemPort = freePort();
        Path jar = Path.of("..", "..", "idem-cli", "target", "idem.jar")
                .toAbsolutePath()
                .normalize();
        assertThat(jar).as("the idem fat jar is built before this module").exists();
        ProcessBuilder pb = new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar",
                jar.toString(),
                "serve",
                "--port",
                Integer.toString(idemPort),
                "--data-dir",
                dir.resolve("idem").toString(),
                "--bootstrap-key",
                KEY,
                "--allow-private-endpoints",
                "--rate-limit",
                "0");
        pb.environment().keySet().removeIf(k -> k.startsWith("IDEM_"));
        pb.redirectErrorStream(true).redirectOutput(dir.resolve("idem.log").toFile());
        Process idem = pb.start();
        try {
            await().atMost(Duration.ofSeconds(60))
                    .ignoreExceptions()
                    .until(() -> call("GET", "/readyz", null).statusCode() == 200);
            String secret = JSON.readTree(
                            call("GET", "/v1/signing-secret", null).body())
                    .get("secret")
                    .asText();
            try (ServletReceiver receiver = new ServletReceiver(
                    secret, 0, "jdbc:sqlite:" + dir.resolve("r.db") + "?journal_mode=WAL&busy_timeout=10000")) {
                String endpoint = "http://127.0.0.1:" + receiver.port() + "/webhooks/reminders";
                for (int i = 0; i < SCHEDULES; i++) {
                    var created = call(
                            "POST",
                            "/v1/schedules",
                            "{\"endpoint\":\"" + endpoint + "\",\"delay\":\"1s\",\"payload\":{\"n\":" + i + "}}");
                    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
                }
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> deliveries("succeeded").size() == SCHEDULES);
                List<String> ids = deliveries("succeeded");
                assertThat(countReminders(receiver)).isEqualTo(SCHEDULES);

                ExecutorService pool = Executors.newFixedThreadPool(8);
                List<Future<HttpResponse<String>>> replays = new ArrayList<>();
                for (String id : ids)
                    for (int copy = 0; copy < 2; copy++)
                        replays.add(pool.submit(() -> call("POST", "/v1/deliveries/" + id + "/replay", null)));
                for (var f : replays) assertThat(f.get().statusCode()).isIn(200, 400);
                pool.shutdown();
                await().atMost(Duration.ofSeconds(60)).until(() -> ids.stream().allMatch(this::settledAfterReplay));
                int attempts = 0;
                for (String id : ids)
                    attempts += JSON.readTree(
                                    call("GET", "/v1/deliveries/" + id, null).body())
                            .get("attempts")
                            .size();
                assertThat(attempts).as("every replay reached the receiver").isGreaterThan(SCHEDULES);
                assertThat(countReminders(receiver)).isEqualTo(SCHEDULES);
            }
        } finally {
            idem.destroy();
            idem.waitFor();
        }
    }

    private boolean settledAfterReplay(String id) {
        try {
            JsonNode d = JSON.readTree(call("GET", "/v1/deliveries/" + id, null).body());
            return d.get("status").asText().equals("succeeded")
                    && d.get("attempts").size() >= 2;
        } catch (IOException e) {
            return false;
        }
    }

    private List<String> deliveries(String status) throws IOException {
        List<String> ids = new ArrayList<>();
        for (JsonNode d : JSON.readTree(call("GET", "/v1/deliveries?limit=100&status=" + status, null)
                        .body())
                .get("data")) ids.add(d.get("id").asText());
        return ids;
    }

    private HttpResponse<String> call(String method, String path, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + idemPort + path))
                .header("Authorization", "Bearer " + KEY)
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) b.header("Content-Type", "application/json");
        try {
            return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(method + " " + path + ": " + e, e);
        }
    }

    private static long countReminders(ServletReceiver r) throws Exception {
        try (Connection c = r.dataSource().getConnection();
                ResultSet rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM reminders")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}

package dev.idem.examples.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.wire.SigningSecret;
import dev.idem.wire.WebhookSigner;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServletReceiverTest {
    static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<String> deliver(int port, String id, long sequence, String secret) throws Exception {
        String body = "{\"delivery_id\":\"" + id + "\",\"sequence\":" + sequence + "}";
        long ts = Instant.now().getEpochSecond();
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/webhooks/reminders"))
                        .header("webhook-id", id)
                        .header("webhook-timestamp", Long.toString(ts))
                        .header(
                                "webhook-signature",
                                WebhookSigner.sign(
                                        SigningSecret.parse(secret), id, ts, body.getBytes(StandardCharsets.UTF_8)))
                        .header("Idem-Schedule-Id", "sch_example")
                        .header("Idem-Sequence", Long.toString(sequence))
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static long count(ServletReceiver r) throws Exception {
        try (Connection c = r.dataSource().getConnection();
                ResultSet rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM reminders")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void redeliveriesAreAppliedOnceStaleSequencesAreSkippedAndForgeriesRefused(@TempDir Path dir) throws Exception {
        try (ServletReceiver r = new ServletReceiver(
                SECRET, 0, "jdbc:sqlite:" + dir.resolve("r.db") + "?journal_mode=WAL&busy_timeout=10000")) {
            int port = r.port();
            assertThat(deliver(port, "dlv_2", 2, SECRET).body()).contains("\"applied\":true");
            assertThat(deliver(port, "dlv_2", 2, SECRET).headers().firstValue("Idempotent-Replayed"))
                    .hasValue("true");
            assertThat(deliver(port, "dlv_1", 1, SECRET).body()).contains("stale sequence");
            String other = "whsec_" + java.util.Base64.getEncoder().encodeToString(new byte[32]);
            assertThat(deliver(port, "dlv_3", 3, other).statusCode()).isEqualTo(403);
            assertThat(count(r)).isEqualTo(1);
        }
    }
}

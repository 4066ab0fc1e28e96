package dev.idem.examples.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.wire.SigningSecret;
import dev.idem.wire.WebhookSigner;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

class BootReceiverTest {
    static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

    @Test
    void theExampleStoresEachDeliveryOnceAndRefusesForgeries(@TempDir Path dir) throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        try (ConfigurableApplicationContext app = SpringApplication.run(
                BootReceiver.class,
                "--server.port=" + port,
                "--spring.datasource.url=jdbc:sqlite:" + dir.resolve("boot.db")
                        + "?journal_mode=WAL&busy_timeout=10000",
                "--idem.receiver.secrets=" + SECRET)) {
            HttpClient http = HttpClient.newHttpClient();
            String body = "{\"invoice\":\"inv_1\"}";
            for (int i = 0; i < 3; i++) {
                long ts = Instant.now().getEpochSecond();
                HttpResponse<String> r = http.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/webhooks/invoice-reminder"))
                                .header("webhook-id", "dlv_1")
                                .header("webhook-timestamp", Long.toString(ts))
                                .header(
                                        "webhook-signature",
                                        WebhookSigner.sign(
                                                SigningSecret.parse(SECRET),
                                                "dlv_1",
                                                ts,
                                                body.getBytes(StandardCharsets.UTF_8)))
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(body))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).isEqualTo(200);
                assertThat(r.body()).isEqualTo("{\"reminded\":\"dlv_1\"}");
            }
            HttpResponse<String> forged = http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/webhooks/invoice-reminder"))
                            .header("webhook-id", "dlv_2")
                            .header(
                                    "webhook-timestamp",
                                    Long.toString(Instant.now().getEpochSecond()))
                            .header("webhook-signature", "v1,Zm9yZ2Vk")
                            .POST(HttpRequest.BodyPublishers.ofString(body))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(forged.statusCode()).isEqualTo(403);
            assertThat(app.getBean(JdbcTemplate.class)
                            .queryForObject("SELECT COUNT(*) FROM invoice_reminders", Long.class))
                    .isEqualTo(1);
        }
    }
}

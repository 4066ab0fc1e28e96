package dev.idem.receiver.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.receiver.TestDatabases;
import dev.idem.wire.SigningSecret;
import dev.idem.wire.WebhookSigner;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/** A real Spring Boot application: the starter's filter in front of a controller that writes with JdbcTemplate. */
class SpringBootReceiverTest {
    static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    static ConfigurableApplicationContext app;
    static int port;
    static final HttpClient http = HttpClient.newHttpClient();

    @SpringBootApplication
    static class App {
        @RestController
        static class Hooks {
            private final JdbcTemplate jdbc;

            Hooks(JdbcTemplate jdbc) {
                this.jdbc = jdbc;
            }

            @PostMapping("/webhooks/orders")
            String order(@RequestHeader("webhook-id") String id, @RequestBody String body) {
                // JdbcTemplate joins the inbox transaction: this insert commits or rolls back with the claim
                jdbc.update("INSERT INTO idem_starter_orders (idem_key, body) VALUES (?, ?)", id, body);
                if (body.contains("\"fail\":true")) throw new IllegalStateException("handler failed after writing");
                return "{\"stored\":\"" + id + "\"}";
            }
        }
    }

    @BeforeAll
    static void start() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String url = TestDatabases.postgresUrl();
        app = SpringApplication.run(
                App.class,
                "--server.port=" + port,
                "--server.address=127.0.0.1",
                "--spring.datasource.url=" + url,
                "--idem.receiver.secrets=" + SECRET,
                "--idem.receiver.store-responses=true",
                "--idem.receiver.inbox.table=idem_starter_inbox");
        app.getBean(JdbcTemplate.class)
                .execute("CREATE TABLE IF NOT EXISTS idem_starter_orders (idem_key VARCHAR(255), body TEXT)");
    }

    @AfterAll
    static void stop() {
        if (app != null) app.close();
    }

    private static HttpResponse<String> deliver(String id, String body, boolean sign) throws Exception {
        long ts = Instant.now().getEpochSecond();
        String sig = sign
                ? WebhookSigner.sign(SigningSecret.parse(SECRET), id, ts, body.getBytes(StandardCharsets.UTF_8))
                : "v1,Zm9yZ2VkIHNpZ25hdHVyZSBvZiAzMiBieXRlcyEhISE=";
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/webhooks/orders"))
                        .header("webhook-id", id)
                        .header("webhook-timestamp", Long.toString(ts))
                        .header("webhook-signature", sig)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static long orders(String id) {
        return app.getBean(JdbcTemplate.class)
                .queryForObject("SELECT COUNT(*) FROM idem_starter_orders WHERE idem_key = ?", Long.class, id);
    }

    @Test
    void aDeliveryIsStoredOnceAndItsDuplicateIsAnswered200WithTheFirstResponse() throws Exception {
        String id = "dlv_" + UUID.randomUUID();
        HttpResponse<String> first = deliver(id, "{\"n\":1}", true);
        HttpResponse<String> again = deliver(id, "{\"n\":1}", true);
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(again.statusCode()).isEqualTo(200);
        assertThat(again.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(again.body()).isEqualTo(first.body()).contains(id);
        assertThat(orders(id)).isEqualTo(1);
    }

    @Test
    void aControllerThatThrowsAfterWritingWithJdbcTemplateLeavesNeitherTheRowNorTheClaim() throws Exception {
        String id = "dlv_" + UUID.randomUUID();
        assertThat(deliver(id, "{\"fail\":true}", true).statusCode()).isEqualTo(500);
        assertThat(orders(id)).isZero();
        assertThat(deliver(id, "{\"fail\":false}", true).statusCode()).isEqualTo(200);
        assertThat(orders(id)).isEqualTo(1);
    }

    @Test
    void aForgedSignatureIs403BadSignatureAndTheControllerNeverRuns() throws Exception {
        String id = "dlv_" + UUID.randomUUID();
        HttpResponse<String> r = deliver(id, "{\"n\":1}", false);
        assertThat(r.statusCode()).isEqualTo(403);
        assertThat(r.body()).contains("BAD_SIGNATURE");
        assertThat(orders(id)).isZero();
    }
}

package dev.idem.receiver.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.receiver.DedupWindow;
import dev.idem.receiver.Inbox;
import dev.idem.receiver.JdbcInbox;
import dev.idem.receiver.MemoryInbox;
import dev.idem.receiver.TestDatabases;
import dev.idem.receiver.Verifier;
import dev.idem.wire.SigningSecret;
import dev.idem.wire.WebhookSigner;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class IdemReceiverFilterTest {
    static final String SECRET =
            "whsec_" + java.util.Base64.getEncoder().encodeToString("filter-test-secret-0123456789ab".getBytes());
    static final HttpClient http = HttpClient.newHttpClient();
    static TestDatabases.Pool pg;

    final AtomicInteger calls = new AtomicInteger();
    final AtomicReference<Integer> answer = new AtomicReference<>(200);
    Server server;

    @BeforeAll
    static void open() {
        pg = new TestDatabases.Pool(TestDatabases.postgresUrl(), 4);
        TestDatabases.exec(pg, "CREATE TABLE IF NOT EXISTS idem_receiver_orders (idem_key VARCHAR(255), body TEXT)");
    }

    @AfterAll
    static void close() {
        pg.close();
    }

    @AfterEach
    void stop() throws Exception {
        if (server != null) server.stop();
    }

    /** A webhook handler that writes an order in the inbox transaction when there is one. */
    class Handler extends HttpServlet {
        @Override
        protected void doPost(HttpServletRequest req, HttpServletResponse res) throws IOException {
            calls.incrementAndGet();
            String body = new String(req.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            var tx = WebhookRequests.transaction(req);
            if (tx.isPresent()) {
                try (PreparedStatement ps =
                        tx.get().prepareStatement("INSERT INTO idem_receiver_orders VALUES (?, ?)")) {
                    ps.setString(1, WebhookRequests.key(req));
                    ps.setString(2, body);
                    ps.executeUpdate();
                } catch (java.sql.SQLException e) {
                    throw new IOException(e);
                }
            }
            if (answer.get() < 0) throw new IllegalStateException("handler crashed");
            res.setStatus(answer.get());
            res.setContentType("application/json");
            res.getWriter().write("{\"handled\":\"" + WebhookRequests.key(req) + "\"}");
        }
    }

    private int start(Filter filter) throws Exception {
        server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        ServletContextHandler ctx = new ServletContextHandler();
        ctx.addFilter(new FilterHolder(filter), "/*", EnumSet.of(DispatcherType.REQUEST));
        ctx.addServlet(new ServletHolder(new Handler()), "/*");
        server.setHandler(ctx);
        server.start();
        return connector.getLocalPort();
    }

    private static HttpResponse<String> post(int port, String id, long ts, String body, String signature)
            throws Exception {
        HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/webhooks/idem"))
                .header("webhook-id", id)
                .header("webhook-timestamp", Long.toString(ts))
                .header("webhook-signature", signature)
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
        return http.send(req, HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> signed(int port, String id, String body) throws Exception {
        long ts = Instant.now().getEpochSecond();
        return post(
                port,
                id,
                ts,
                body,
                WebhookSigner.sign(SigningSecret.parse(SECRET), id, ts, body.getBytes(StandardCharsets.UTF_8)));
    }

    private static long orders(String key) {
        return TestDatabases.count(pg, "SELECT COUNT(*) FROM idem_receiver_orders WHERE idem_key = '" + key + "'");
    }

    private int startOnPostgres() throws Exception {
        JdbcInbox inbox = JdbcInbox.builder(pg).build();
        return start(IdemReceiverFilter.builder(Verifier.standardWebhooks(SECRET), inbox)
                .storeResponses(true)
                .build());
    }

    @Test
    void aSignedDeliveryIsHandledInTheInboxTransactionAndItsDuplicateGets200WithoutTheHandler() throws Exception {
        int port = startOnPostgres();
        String id = "dlv_" + UUID.randomUUID();
        HttpResponse<String> first = signed(port, id, "{\"n\":1}");
        HttpResponse<String> again = signed(port, id, "{\"n\":1}");
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.body()).isEqualTo("{\"handled\":\"" + id + "\"}");
        assertThat(again.statusCode()).isEqualTo(200);
        assertThat(again.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(again.body()).isEqualTo(first.body());
        assertThat(calls).hasValue(1);
        assertThat(orders(id)).isEqualTo(1);
    }

    @Test
    void forgedStaleAndReserialisedRequestsGet403BadSignatureBeforeAnyHandlerCode() throws Exception {
        int port = startOnPostgres();
        String id = "dlv_" + UUID.randomUUID();
        long now = Instant.now().getEpochSecond();
        String body = "{\"n\": 1}";
        String sig = WebhookSigner.sign(SigningSecret.parse(SECRET), id, now, body.getBytes(StandardCharsets.UTF_8));
        String other = "whsec_" + java.util.Base64.getEncoder().encodeToString(new byte[24]);
        HttpResponse<String> forged = post(
                port,
                id,
                now,
                body,
                WebhookSigner.sign(SigningSecret.parse(other), id, now, body.getBytes(StandardCharsets.UTF_8)));
        long stale = now - 600;
        HttpResponse<String> old = post(
                port,
                id,
                stale,
                body,
                WebhookSigner.sign(SigningSecret.parse(SECRET), id, stale, body.getBytes(StandardCharsets.UTF_8)));
        HttpResponse<String> reserialised = post(port, id, now, "{\"n\":1}", sig);
        for (HttpResponse<String> r : java.util.List.of(forged, old, reserialised)) {
            assertThat(r.statusCode()).isEqualTo(403);
            assertThat(r.body()).contains("\"code\":\"BAD_SIGNATURE\"");
        }
        assertThat(calls).hasValue(0);
        assertThat(post(port, id, now, body, sig).statusCode()).isEqualTo(200);
    }

    @Test
    void aNon2xxAnswerOrACrashRollsTheClaimAndTheWritesBackSoTheRetryDoesTheWork() throws Exception {
        int port = startOnPostgres();
        String id = "dlv_" + UUID.randomUUID();
        answer.set(500);
        assertThat(signed(port, id, "{}").statusCode()).isEqualTo(500);
        answer.set(-1);
        assertThat(signed(port, id, "{}").statusCode()).isEqualTo(500);
        assertThat(orders(id)).isZero();
        answer.set(200);
        assertThat(signed(port, id, "{}").statusCode()).isEqualTo(200);
        assertThat(signed(port, id, "{}").headers().firstValue("Idempotent-Replayed"))
                .hasValue("true");
        assertThat(calls).hasValue(3);
        assertThat(orders(id)).isEqualTo(1);
    }

    @Test
    void inStripeModeTheStripeSignatureIsCheckedAndTheEventIdIsTheKey() throws Exception {
        String whsec = "whsec_stripe_test";
        int port = start(IdemReceiverFilter.builder(
                        dev.idem.receiver.VerifierMode.STRIPE.verifier(
                                java.util.List.of(whsec), Duration.ofSeconds(300), Clock.systemUTC()),
                        new MemoryInbox())
                .keys(dev.idem.receiver.VerifierMode.STRIPE.defaultKeys())
                .build());
        String evt = "evt_" + UUID.randomUUID().toString().replace("-", "");
        String body = "{\"id\":\"" + evt + "\",\"type\":\"invoice.paid\"}";
        java.util.function.Function<String, HttpResponse<String>> send = header -> {
            try {
                return http.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/stripe"))
                                .header("Stripe-Signature", header)
                                .POST(HttpRequest.BodyPublishers.ofString(body))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        };
        String good = dev.idem.wire.StripeSignatureVerifier.sign(
                whsec, Instant.now().getEpochSecond(), body.getBytes(StandardCharsets.UTF_8));
        assertThat(send.apply(good).body()).contains("\"handled\":\"" + evt + "\"");
        assertThat(send.apply(good).headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(send.apply(good.replace("v1=", "v1=00")).statusCode()).isEqualTo(403);
        assertThat(calls).hasValue(1);
    }

    @Test
    void inClaimModeADeliveryWhoseKeyIsHeldElsewhereGets409WithRetryAfter() throws Exception {
        Inbox inbox = new MemoryInbox(Clock.systemUTC(), Duration.ofSeconds(30));
        int port = start(IdemReceiverFilter.builder(Verifier.standardWebhooks(SECRET), inbox)
                .build());
        String id = "dlv_" + UUID.randomUUID();
        var held = inbox.claim(id, Duration.ofSeconds(30));
        HttpResponse<String> busy = signed(port, id, "{}");
        assertThat(busy.statusCode()).isEqualTo(409);
        assertThat(busy.body()).contains("IN_PROGRESS");
        assertThat(busy.headers().firstValue("Retry-After"))
                .hasValueSatisfying(v -> assertThat(Integer.parseInt(v)).isBetween(1, 30));
        held.claim().close();
        assertThat(signed(port, id, "{}").statusCode()).isEqualTo(200);
        HttpResponse<String> dup = signed(port, id, "{}");
        assertThat(dup.statusCode()).isEqualTo(200);
        assertThat(dup.body()).contains("\"duplicate\":true");
        assertThat(calls).hasValue(1);
        assertThat(DedupWindow.defaults().window()).isPositive();
    }
}

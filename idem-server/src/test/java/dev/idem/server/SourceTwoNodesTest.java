package dev.idem.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.core.store.Store;
import dev.idem.server.internal.SourceIngest;
import dev.idem.store.testing.TestDatabase;
import dev.idem.store.testing.TestStores;
import dev.idem.wire.StripeSignatureVerifier;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two nodes on one PostgreSQL database: a provider's duplicates and retries are forwarded once. */
class SourceTwoNodesTest {
    private static final String SECRET = "whsec_two_nodes";

    @TempDir
    Path dir;

    TestDatabase db;
    Store storeA;
    Store storeB;
    TestNode a;
    TestNode b;
    LoopbackReceiver receiver;
    String sourceId;

    @BeforeEach
    void start() throws Exception {
        db = TestStores.postgresDatabase();
        storeA = db.open(Clock.systemUTC());
        storeB = db.open(Clock.systemUTC());
        receiver = new LoopbackReceiver();
        a = new TestNode(storeA, dir, Clock.systemUTC(), 0);
        b = new TestNode(storeB, dir, Clock.systemUTC(), 0);
        var created = a.call(
                "POST",
                "/v1/sources",
                "{\"name\":\"stripe\",\"verify\":{\"scheme\":\"stripe\",\"secret\":\"" + SECRET
                        + "\"},\"destination\":\"" + receiver.url("/stripe") + "\",\"rate_limit\":1000}");
        assertThat(created.status()).as(created.raw()).isEqualTo(201);
        sourceId = created.json().get("id").asText();
    }

    @AfterEach
    void stop() {
        SourceIngest.afterCommitForTests(null);
        for (AutoCloseable c : new AutoCloseable[] {a, b, receiver, storeA, storeB, db}) {
            try {
                if (c != null) c.close();
            } catch (Exception ignored) {
                // closing what is already closed
            }
        }
    }

    private static HttpRequest ingest(int port, String sourceId, String body, Duration timeout) {
        long ts = System.currentTimeMillis() / 1000;
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/in/" + sourceId))
                .timeout(timeout)
                .header(
                        "Stripe-Signature",
                        StripeSignatureVerifier.sign(SECRET, ts, body.getBytes(StandardCharsets.UTF_8)))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
    }

    private long forwardsOf(String eventId) {
        return receiver.requests.stream()
                .filter(r -> new String(r.body(), StandardCharsets.UTF_8).contains(eventId))
                .count();
    }

    @Test
    void sixteenCopiesArrivingAtOnceOnTwoNodesAreForwardedOnce() throws Exception {
        String body = "{\"id\":\"evt_storm\",\"type\":\"invoice.paid\"}";
        HttpClient http = HttpClient.newHttpClient();
        ExecutorService pool = Executors.newFixedThreadPool(16);
        List<Future<HttpResponse<String>>> answers = new ArrayList<>();
        try {
            CyclicBarrier together = new CyclicBarrier(16);
            for (int i = 0; i < 16; i++) {
                int port = (i % 2 == 0 ? a : b).server.port();
                answers.add(pool.submit(() -> {
                    together.await(10, TimeUnit.SECONDS);
                    return http.send(
                            ingest(port, sourceId, body, Duration.ofSeconds(30)), HttpResponse.BodyHandlers.ofString());
                }));
            }
            List<JsonNode> bodies = new ArrayList<>();
            for (var f : answers) {
                HttpResponse<String> r = f.get(60, TimeUnit.SECONDS);
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                bodies.add(ApiClientForTests.JSON.readTree(r.body()));
            }
            assertThat(bodies)
                    .filteredOn(j -> !j.get("deduplicated").asBoolean())
                    .hasSize(1);
            assertThat(bodies)
                    .extracting(j -> j.get("delivery_id").asText())
                    .containsOnly(bodies.get(0).get("delivery_id").asText());
        } finally {
            pool.shutdownNow();
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> forwardsOf("evt_storm") >= 1);
        // long enough for a second forward to have gone out had one been written
        await().pollDelay(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> true);
        assertThat(forwardsOf("evt_storm")).isEqualTo(1);
        assertThat(a.call("GET", "/v1/deliveries?source_id=" + sourceId, null)
                        .json()
                        .get("data"))
                .hasSize(1);
    }

    @Test
    void aNodeThatDiesBetweenCommitAndAnswerLeavesOneForwardWhenTheProviderRetriesElsewhere() throws Exception {
        String body = "{\"id\":\"evt_lost_answer\",\"type\":\"invoice.paid\"}";
        CountDownLatch committed = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        SourceIngest.afterCommitForTests(() -> {
            committed.countDown();
            try {
                release.await(30, TimeUnit.SECONDS); // node A never answers: it is stopped while here
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        HttpClient http = HttpClient.newHttpClient();
        var lost = http.sendAsync(
                ingest(a.server.port(), sourceId, body, Duration.ofSeconds(30)), HttpResponse.BodyHandlers.ofString());
        assertThat(committed.await(20, TimeUnit.SECONDS)).isTrue();
        SourceIngest.afterCommitForTests(null);
        Thread stopper = new Thread(a::close);
        stopper.start();
        // the provider sees its connection drop without an answer
        assertThatThrownBy(() -> lost.get(30, TimeUnit.SECONDS)).hasRootCauseInstanceOf(java.io.IOException.class);
        release.countDown();
        stopper.join(30_000);

        HttpResponse<String> retry = http.send(
                ingest(b.server.port(), sourceId, body, Duration.ofSeconds(30)), HttpResponse.BodyHandlers.ofString());
        assertThat(retry.statusCode()).as(retry.body()).isEqualTo(200);
        assertThat(ApiClientForTests.JSON
                        .readTree(retry.body())
                        .get("deduplicated")
                        .asBoolean())
                .isTrue();
        await().atMost(Duration.ofSeconds(20)).until(() -> forwardsOf("evt_lost_answer") >= 1);
        await().pollDelay(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> true);
        assertThat(forwardsOf("evt_lost_answer")).isEqualTo(1);
    }
}

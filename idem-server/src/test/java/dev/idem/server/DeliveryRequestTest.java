package dev.idem.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.core.store.Store;
import dev.idem.store.testing.TestStores;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code request} on {@code GET /v1/deliveries/{id}} against what a real receiver got: the rebuilt request must be
 * the one that arrived, headers (signature included) and body, for the latest attempt; the secret never shows.
 */
class DeliveryRequestTest {
    @TempDir
    Path dir;

    Store store;
    TestNode node;
    LoopbackReceiver receiver;

    @BeforeEach
    void start() throws Exception {
        store = TestStores.sqlite(dir, Clock.systemUTC());
        node = new TestNode(store, dir, Clock.systemUTC(), 0);
        receiver = new LoopbackReceiver();
    }

    @AfterEach
    void stop() {
        node.close();
        receiver.close();
        store.close();
    }

    private String createAndAwaitDelivery(String body, int requests) {
        var created = node.call("POST", "/v1/schedules", body);
        assertThat(created.status()).as(created.raw()).isEqualTo(201);
        String scheduleId = created.json().get("id").asText();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> receiver.requests.size() >= requests
                        && "succeeded"
                                .equals(node.call("GET", "/v1/deliveries?schedule_id=" + scheduleId, null)
                                        .json()
                                        .at("/data/0/status")
                                        .asText()));
        return node.call("GET", "/v1/deliveries?schedule_id=" + scheduleId, null)
                .json()
                .at("/data/0/id")
                .asText();
    }

    private static Map<String, String> lowerCased(JsonNode headers) {
        Map<String, String> out = new TreeMap<>();
        headers.fields()
                .forEachRemaining(e -> out.put(
                        e.getKey().toLowerCase(Locale.ROOT), e.getValue().asText()));
        return out;
    }

    /** The received headers the sender's HTTP client adds on its own (transport, not the request Idem built). */
    private static Map<String, String> withoutTransport(Map<String, String> received) {
        Map<String, String> out = new TreeMap<>(received);
        for (String h :
                new String[] {"host", "content-length", "connection", "accept-encoding", "transfer-encoding", "expect"})
            out.remove(h);
        return out;
    }

    @Test
    void theRequestOfTheLatestAttemptIsTheOneTheReceiverGotSignatureIncluded() {
        String id = createAndAwaitDelivery(
                "{\"endpoint\":\"" + receiver.url("/in") + "\",\"event_type\":\"invoice.due\","
                        + "\"headers\":{\"X-Tenant\":\"acme\"},\"header_profile\":\"schedstack\"}",
                1);
        JsonNode first = node.call("GET", "/v1/deliveries/" + id, null).json().get("request");
        assertThat(first.get("attempt").asInt()).isEqualTo(1);
        assertThat(first.get("url").asText()).isEqualTo(receiver.url("/in"));
        assertThat(first.get("signature_omitted").isNull()).isTrue();
        LoopbackReceiver.Received got = receiver.requests.get(0);
        assertThat(lowerCased(first.get("headers")))
                .isEqualTo(withoutTransport(got.headers()))
                .containsKeys("webhook-signature", "sched-signature");
        assertThat(first.get("body").asText()).isEqualTo(new String(got.body(), StandardCharsets.UTF_8));

        // a replay is attempt 2: the request shown follows it, with its own timestamp and signature
        assertThat(node.call("POST", "/v1/deliveries/" + id + "/replay", null).status())
                .isEqualTo(200);
        await().atMost(Duration.ofSeconds(20))
                .until(() -> receiver.requests.size() >= 2
                        && node.call("GET", "/v1/deliveries/" + id, null)
                                        .json()
                                        .get("attempts")
                                        .size()
                                == 2);
        var second = node.call("GET", "/v1/deliveries/" + id, null);
        JsonNode request = second.json().get("request");
        assertThat(request.get("attempt").asInt()).isEqualTo(2);
        LoopbackReceiver.Received again = receiver.requests.get(1);
        assertThat(lowerCased(request.get("headers"))).isEqualTo(withoutTransport(again.headers()));
        assertThat(request.get("body").asText()).isEqualTo(new String(again.body(), StandardCharsets.UTF_8));
        String secret = node.call("GET", "/v1/signing-secret", null)
                .json()
                .get("secret")
                .asText();
        assertThat(second.raw()).doesNotContain(secret).doesNotContain(secret.substring("whsec_".length()));
    }

    @Test
    void anAttemptOlderThanTheLastRotationShowsNoSignatureAndSaysWhy() {
        String id = createAndAwaitDelivery("{\"endpoint\":\"" + receiver.url("/in") + "\",\"payload\":{\"n\":1}}", 1);
        assertThat(node.call("POST", "/v1/signing-secret/rotate", null).status())
                .isEqualTo(200);
        JsonNode request = node.call("GET", "/v1/deliveries/" + id, null).json().get("request");
        assertThat(request.get("signature_omitted").asText())
                .contains("predates")
                .contains("rotation");
        Map<String, String> expected = withoutTransport(receiver.requests.get(0).headers());
        expected.remove("webhook-signature");
        assertThat(lowerCased(request.get("headers"))).isEqualTo(expected);
        assertThat(request.get("body").asText()).isEqualTo("{\"n\":1}");
    }
}

package dev.idem.server.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idem.server.LoopbackReceiver;
import dev.idem.wire.SigningSecret;
import dev.idem.wire.StandardWebhooksVerifier;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * docs/api.md, "{@code payload}: the exact bytes": the receiver gets the bytes the caller wrote for
 * the payload value (numbers as spelled, big integers, key order, escapes, spacing), signed over those bytes, and
 * the API shows the same text back; through create, PATCH and an unrelated PATCH, on every store.
 */
abstract class PayloadBytesContract extends OneNodeContract {
    LoopbackReceiver.Received awaitRequest(LoopbackReceiver r, String path, int nth) {
        await().atMost(Duration.ofSeconds(30))
                .until(() ->
                        r.requests.stream().filter(q -> q.path().equals(path)).count() >= nth);
        return r.requests.stream()
                .filter(q -> q.path().equals(path))
                .skip(nth - 1L)
                .findFirst()
                .orElseThrow();
    }

    void assertSignedOver(LoopbackReceiver.Received got, byte[] body) {
        String secret =
                call("GET", "/v1/signing-secret", null).json().get("secret").asText();
        var verified = new StandardWebhooksVerifier(
                        java.util.List.of(SigningSecret.parse(secret)),
                        StandardWebhooksVerifier.DEFAULT_TOLERANCE,
                        Clock.systemUTC())
                .verify(
                        got.header("webhook-id"),
                        got.header("webhook-timestamp"),
                        got.header("webhook-signature"),
                        body);
        assertThat(verified.valid()).as("signature over the bytes received").isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "{\"b\": 1, \"a\": [1.0, 100.0]}",
                "[12345678901234567890123456789012345678901234567890, -12345678901234567890, -0, 1e400, 1E-7, 0.10, 2.50e+3, 9007199254740993]",
                "\"caf\\u00e9 \\ud83d\\ude00 \\\"quoted\\\" \\/ caf\u00e9 \uD83D\uDE00\"",
                "{\"z\": {\"y\": {\"x\": [true, false, null, {\"w\": []}]}}, \"a\": {}, \"m\": {\"payload\": 1.10}}",
                "{\n  \"pretty\" : [\n    1.0 ,\n    2\n  ]\n}",
                "{\"name\":\"Zo\u00eb \u4e2d\u6587 \uD83D\uDE00\",\"k\":\"\\u0041\"}",
                "3.0",
                "null"
            })
    void aPayloadReachesTheReceiverByteForByte(String payload) {
        String path = "/p/" + UUID.randomUUID();
        var created = call(
                "POST",
                "/v1/schedules",
                "{\"endpoint\":\"" + receiver.url(path) + "\", \"payload\" : " + payload + " }");
        assertThat(created.status()).as(created.raw()).isEqualTo(201);
        if (!payload.equals("null")) assertThat(created.raw()).contains("\"payload\":" + payload + ",");
        byte[] sent = payload.getBytes(StandardCharsets.UTF_8);
        if (payload.equals("null")) return; // a null payload is no payload: the envelope is sent
        LoopbackReceiver.Received got = awaitRequest(receiver, path, 1);
        assertThat(new String(got.body(), StandardCharsets.UTF_8)).isEqualTo(payload);
        assertThat(got.body()).isEqualTo(sent);
        assertThat(got.header("Content-Type")).startsWith("application/json");
        assertSignedOver(got, sent);
        var stored = call("GET", "/v1/schedules/" + created.json().get("id").asText(), null);
        assertThat(stored.raw()).contains("\"payload\":" + payload + ",");
    }

    @Test
    void eachPayloadOfABatchReachesItsReceiverByteForByte() {
        String a = "{\"n\": 1.0, \"big\": 123456789012345678901234567890}";
        String b = "[ 100.0 , \"\\u00e9\" ]";
        String pa = "/batch/" + UUID.randomUUID();
        String pb = "/batch/" + UUID.randomUUID();
        var r = call(
                "POST",
                "/v1/schedules/batch",
                "{\"schedules\": [{\"endpoint\":\"" + receiver.url(pa) + "\",\"payload\":" + a + "},"
                        + " {\"payload\" : " + b + " , \"endpoint\":\"" + receiver.url(pb) + "\"}]}");
        assertThat(r.status()).as(r.raw()).isEqualTo(200);
        assertThat(r.json().get("created").asInt()).as(r.raw()).isEqualTo(2);
        assertThat(awaitRequest(receiver, pa, 1).body()).isEqualTo(a.getBytes(StandardCharsets.UTF_8));
        assertThat(awaitRequest(receiver, pb, 1).body()).isEqualTo(b.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aPatchedPayloadIsSentVerbatimOnTheNextAttempt() throws Exception {
        try (LoopbackReceiver failing = new LoopbackReceiver()) {
            failing.status.set(500);
            var created = call(
                    "POST",
                    "/v1/schedules",
                    "{\"endpoint\":\"" + failing.url("/patched") + "\",\"payload\":{\"v\":1.0},"
                            + "\"retry\":{\"max_attempts\":5,\"initial_backoff\":\"1s\",\"max_backoff\":\"1s\"}}");
            assertThat(created.status()).as(created.raw()).isEqualTo(201);
            assertThat(new String(awaitRequest(failing, "/patched", 1).body(), StandardCharsets.UTF_8))
                    .isEqualTo("{\"v\":1.0}");
            String patch = "{\"v\": 2.00, \"big\": 123456789012345678901234567890, \"e\": \"\\u00e9\"}";
            var patched =
                    call("PATCH", "/v1/schedules/" + created.json().get("id").asText(), "{\"payload\":" + patch + "}");
            assertThat(patched.status()).as(patched.raw()).isEqualTo(200);
            assertThat(patched.raw()).contains("\"payload\":" + patch + ",");
            failing.status.set(200);
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> failing.requests.stream()
                            .anyMatch(q -> new String(q.body(), StandardCharsets.UTF_8).equals(patch)));
        }
    }

    @Test
    void aPatchOfAnotherFieldKeepsThePayloadBytes() {
        String payload = "{ \"b\" : 1.0, \"a\" : 1e2 }";
        var created = call(
                "POST",
                "/v1/schedules",
                "{\"endpoint\":\"" + receiver.url("/kept") + "\",\"fire_at\":\"2035-01-01T00:00:00Z\",\"payload\":"
                        + payload + "}");
        String id = created.json().get("id").asText();
        var patched = call("PATCH", "/v1/schedules/" + id, "{\"timeout\":\"5s\",\"headers\":{\"X-A\":\"1\"}}");
        assertThat(patched.status()).as(patched.raw()).isEqualTo(200);
        assertThat(call("GET", "/v1/schedules/" + id, null).raw())
                .contains("\"payload\":" + payload + ",")
                .contains("\"timeout\":\"5s\"");
        call("DELETE", "/v1/schedules/" + id, null);
    }
}

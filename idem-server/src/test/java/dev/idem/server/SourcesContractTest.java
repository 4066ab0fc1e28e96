package dev.idem.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.core.store.Store;
import dev.idem.wire.GitHubSignatureVerifier;
import dev.idem.wire.HmacSha256Verifier;
import dev.idem.wire.SigningSecret;
import dev.idem.wire.StandardWebhooksVerifier;
import dev.idem.wire.StripeSignatureVerifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** Inbound sources over HTTP against a real store and a loopback destination; one subclass per store. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class SourcesContractTest {
    static final String STRIPE_SECRET = "whsec_test_stripe_endpoint_secret";

    @TempDir
    static Path dir;

    Store store;
    TestNode node;
    LoopbackReceiver receiver;

    abstract Store openStore(Path dir, Clock clock);

    @BeforeAll
    void start() throws Exception {
        store = openStore(dir, Clock.systemUTC());
        receiver = new LoopbackReceiver();
        node = new TestNode(store, dir, Clock.systemUTC(), 0);
    }

    @AfterAll
    void stop() {
        if (node != null) node.close();
        if (receiver != null) receiver.close();
        if (store != null) store.close();
    }

    JsonNode createSource(String verify, String extra) {
        var r = node.call(
                "POST",
                "/v1/sources",
                "{\"name\":\"src\",\"verify\":" + verify + ",\"destination\":\""
                        + receiver.url("/dest/" + UUID.randomUUID()) + "\"" + extra + "}");
        assertThat(r.status()).as(r.raw()).isEqualTo(201);
        return r.json();
    }

    JsonNode stripeSource() {
        return createSource("{\"scheme\":\"stripe\",\"secret\":\"" + STRIPE_SECRET + "\"}", "");
    }

    ApiClientForTests.Reply ingest(String sourceId, String body, Map<String, String> headers) {
        return node.api.call("POST", "/in/" + sourceId, null, body, headers);
    }

    static Map<String, String> stripeHeaders(String secret, long ts, String body) {
        return Map.of(
                "Stripe-Signature",
                StripeSignatureVerifier.sign(secret, ts, body.getBytes(StandardCharsets.UTF_8)),
                "Content-Type",
                "application/json; charset=utf-8");
    }

    static long now() {
        return System.currentTimeMillis() / 1000;
    }

    List<LoopbackReceiver.Received> receivedAt(String destination) {
        String path = destination.substring(destination.indexOf("/dest/"));
        return receiver.requests.stream().filter(r -> r.path().equals(path)).toList();
    }

    JsonNode deliveriesOf(String sourceId) {
        return node.call("GET", "/v1/deliveries?source_id=" + sourceId, null)
                .json()
                .get("data");
    }

    @Test
    void aSourceIsCreatedWithItsIngestUrlAndItsSecretIsNeverReturned() {
        JsonNode s = stripeSource();
        String id = s.get("id").asText();
        assertThat(id).startsWith("src_");
        assertThat(s.get("object").asText()).isEqualTo("source");
        assertThat(s.get("ingest_path").asText()).isEqualTo("/in/" + id);
        assertThat(s.get("ingest_url").asText()).endsWith("/in/" + id).startsWith("http://127.0.0.1:");
        assertThat(s.get("dedup").asText()).isEqualTo("auto");
        assertThat(s.at("/verify/scheme").asText()).isEqualTo("stripe");
        assertThat(s.at("/verify/tolerance").asText()).isEqualTo("5m");
        for (String path : List.of("/v1/sources/" + id, "/v1/sources"))
            assertThat(node.call("GET", path, null).raw()).contains(id).doesNotContain(STRIPE_SECRET);
        assertThat(s.toString()).doesNotContain(STRIPE_SECRET);
    }

    @Test
    void aVerifiedStripeEventIsForwardedVerbatimWithTheProviderHeadersAndIdemsOwnSignature() throws Exception {
        JsonNode s = stripeSource();
        String id = s.get("id").asText();
        // spacing, key order and a non-ASCII character: forwarded byte for byte, never re-serialised
        String body =
                "{\n  \"id\": \"evt_1\", \"type\":\"invoice.paid\",  \"amount\": 12.50, \"name\": \"Zo\u00eb\"\n}";
        var r = ingest(id, body, stripeHeaders(STRIPE_SECRET, now(), body));
        assertThat(r.status()).as(r.raw()).isEqualTo(200);
        assertThat(r.json().get("deduplicated").asBoolean()).isFalse();
        assertThat(r.json().get("event_id").asText()).isEqualTo("evt_1");
        String deliveryId = r.json().get("delivery_id").asText();

        String dest = s.get("destination").asText();
        await().atMost(Duration.ofSeconds(15)).until(() -> !receivedAt(dest).isEmpty());
        LoopbackReceiver.Received got = receivedAt(dest).get(0);
        assertThat(got.body()).isEqualTo(body.getBytes(StandardCharsets.UTF_8));
        assertThat(got.header("Content-Type")).isEqualTo("application/json; charset=utf-8");
        assertThat(got.header("Idem-Source-Id")).isEqualTo(id);
        assertThat(got.header("Idem-Source-Header-Stripe-Signature")).startsWith("t=");
        assertThat(got.header("webhook-id")).isEqualTo(deliveryId);
        String secret = node.call("GET", "/v1/signing-secret", null)
                .json()
                .get("secret")
                .asText();
        var verifier = new StandardWebhooksVerifier(
                List.of(SigningSecret.parse(secret)), StandardWebhooksVerifier.DEFAULT_TOLERANCE, Clock.systemUTC());
        assertThat(verifier.verify(
                                got.header("webhook-id"),
                                got.header("webhook-timestamp"),
                                got.header("webhook-signature"),
                                got.body())
                        .valid())
                .isTrue();

        await().atMost(Duration.ofSeconds(10))
                .until(() ->
                        "succeeded".equals(deliveriesOf(id).get(0).get("status").asText()));
        assertThat(deliveriesOf(id)).extracting(d -> d.get("id").asText()).containsExactly(deliveryId);
        // the event's internal schedule never shows in the user's list
        assertThat(node.call("GET", "/v1/schedules?limit=100", null).raw())
                .doesNotContain(got.header("Idem-Schedule-Id"));

        var replay = node.call("POST", "/v1/deliveries/" + deliveryId + "/replay", null);
        assertThat(replay.status()).as(replay.raw()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(15)).until(() -> receivedAt(dest).size() == 2);
        assertThat(receivedAt(dest).get(1).header("webhook-id")).isEqualTo(deliveryId);
        assertThat(receivedAt(dest).get(1).body()).isEqualTo(body.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void forgeriesStaleTimestampsAndReserialisedBodiesGet403AndStoreNothing() {
        JsonNode s = stripeSource();
        String id = s.get("id").asText();
        String body = "{\"id\":\"evt_forged\",\"type\":\"charge.succeeded\"}";
        String pretty = "{\"id\": \"evt_forged\", \"type\": \"charge.succeeded\"}";
        List<ApiClientForTests.Reply> refused = List.of(
                ingest(id, body, stripeHeaders("whsec_someone_else", now(), body)),
                ingest(id, body, stripeHeaders(STRIPE_SECRET, now() - 600, body)),
                ingest(id, pretty, stripeHeaders(STRIPE_SECRET, now(), body)),
                ingest(id, body, Map.of()),
                ingest(id, body, Map.of("Stripe-Signature", "t=" + now() + ",v1=" + "00".repeat(32))));
        for (var r : refused) {
            assertThat(r.status()).as(r.raw()).isEqualTo(403);
            assertThat(r.json().at("/error/code").asText()).isEqualTo("BAD_SIGNATURE");
            assertThat(r.json().at("/error/request_id").asText()).isEqualTo(r.header("Request-Id"));
            assertThat(r.raw()).doesNotContain(STRIPE_SECRET);
        }
        assertThat(refused.get(1).json().at("/error/message").asText()).contains("tolerance");
        assertThat(deliveriesOf(id)).isEmpty();
    }

    @Test
    void aDuplicateEventIdIsAnswered200AndNotForwardedAgain() {
        JsonNode s = stripeSource();
        String id = s.get("id").asText();
        String body = "{\"id\":\"evt_dup\",\"type\":\"invoice.paid\"}";
        var first = ingest(id, body, stripeHeaders(STRIPE_SECRET, now(), body));
        // the provider's retry: a new timestamp and signature, the same event id
        var again = ingest(id, body, stripeHeaders(STRIPE_SECRET, now() + 1, body));
        assertThat(again.status()).as(again.raw()).isEqualTo(200);
        assertThat(again.json().get("deduplicated").asBoolean()).isTrue();
        assertThat(again.json().get("delivery_id").asText())
                .isEqualTo(first.json().get("delivery_id").asText());
        assertThat(deliveriesOf(id)).hasSize(1);
    }

    @Test
    void githubsPublishedExampleVerifiesAndItsDeliveryHeaderIsTheDedupKey() {
        JsonNode s = createSource("{\"scheme\":\"github\",\"secret\":\"It's a Secret to Everybody\"}", "");
        String id = s.get("id").asText();
        Map<String, String> headers = Map.of(
                "X-Hub-Signature-256",
                "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17",
                "X-GitHub-Delivery",
                "72d3162e-cc78-11e3-81ab-4c9367dc0958",
                "X-GitHub-Event",
                "ping",
                "Content-Type",
                "text/plain");
        var r = ingest(id, "Hello, World!", headers);
        assertThat(r.status()).as(r.raw()).isEqualTo(200);
        assertThat(r.json().get("event_id").asText()).isEqualTo("72d3162e-cc78-11e3-81ab-4c9367dc0958");
        assertThat(ingest(id, "Hello, World!", headers)
                        .json()
                        .get("deduplicated")
                        .asBoolean())
                .isTrue();
        assertThat(ingest(id, "Hello, World?", headers).status()).isEqualTo(403);
        String dest = s.get("destination").asText();
        await().atMost(Duration.ofSeconds(15)).until(() -> !receivedAt(dest).isEmpty());
        assertThat(receivedAt(dest).get(0).header("Idem-Source-Header-X-GitHub-Event"))
                .isEqualTo("ping");
        assertThat(receivedAt(dest).get(0).body()).isEqualTo("Hello, World!".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void standardWebhooksAndHmacSha256SourcesVerifyTheirSchemes() {
        SigningSecret sw = SigningSecret.parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
        String swId = createSource("{\"scheme\":\"standard_webhooks\",\"secret\":\"" + sw.reveal() + "\"}", "")
                .get("id")
                .asText();
        String body = "{\"type\":\"user.created\"}";
        long ts = now();
        String sig = dev.idem.wire.WebhookSigner.sign(List.of(sw), "msg_1", ts, body.getBytes(StandardCharsets.UTF_8));
        Map<String, String> swHeaders =
                Map.of("webhook-id", "msg_1", "webhook-timestamp", Long.toString(ts), "webhook-signature", sig);
        assertThat(ingest(swId, body, swHeaders).json().get("event_id").asText())
                .isEqualTo("msg_1");
        assertThat(ingest(swId, body + " ", swHeaders).status()).isEqualTo(403);

        for (String encoding : List.of("hex", "base64")) {
            JsonNode s = createSource(
                    "{\"scheme\":\"hmac_sha256\",\"secret\":\"shpss_1\",\"header\":\"X-Shopify-Hmac-Sha256\",\"encoding\":\""
                            + encoding + "\"}",
                    ",\"dedup\":\"header:X-Shopify-Webhook-Id\"");
            String mac = HmacSha256Verifier.sign(
                    "shpss_1", HmacSha256Verifier.Encoding.parse(encoding), body.getBytes(StandardCharsets.UTF_8));
            var ok = ingest(
                    s.get("id").asText(),
                    body,
                    Map.of("X-Shopify-Hmac-Sha256", mac, "X-Shopify-Webhook-Id", "wh_" + encoding));
            assertThat(ok.status()).as(encoding + ": " + ok.raw()).isEqualTo(200);
            assertThat(ok.json().get("event_id").asText()).isEqualTo("wh_" + encoding);
            String wrong = HmacSha256Verifier.sign(
                    "shpss_2", HmacSha256Verifier.Encoding.parse(encoding), body.getBytes(StandardCharsets.UTF_8));
            assertThat(ingest(s.get("id").asText(), body, Map.of("X-Shopify-Hmac-Sha256", wrong))
                            .status())
                    .isEqualTo(403);
        }
    }

    @Test
    void anHmacSourceForwardsBodiesThatAreNotUtf8TextByteForByteAndIdemsSignatureCoversThem() throws Exception {
        JsonNode s = createSource(
                "{\"scheme\":\"hmac_sha256\",\"secret\":\"shpss_1\",\"header\":\"X-Hmac\",\"encoding\":\"base64\"}",
                "");
        String id = s.get("id").asText();
        String dest = s.get("destination").asText();
        java.io.ByteArrayOutputStream zipped = new java.io.ByteArrayOutputStream();
        try (var gz = new java.util.zip.GZIPOutputStream(zipped)) {
            gz.write("{\"id\":\"evt_gz\"}".getBytes(StandardCharsets.UTF_8));
        }
        byte[] every = new byte[256];
        for (int i = 0; i < 256; i++) every[i] = (byte) (255 - i);
        Map<String, byte[]> bodies = new java.util.LinkedHashMap<>();
        bodies.put(
                "application/x-www-form-urlencoded; charset=iso-8859-1",
                "name=Zo\u00eb&city=K\u00f6ln".getBytes(StandardCharsets.ISO_8859_1));
        bodies.put("application/gzip", zipped.toByteArray());
        bodies.put("application/octet-stream", every);
        java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
        Map<String, String> deliveryOf = new java.util.HashMap<>();
        for (var e : bodies.entrySet()) {
            String mac = HmacSha256Verifier.sign("shpss_1", HmacSha256Verifier.Encoding.BASE64, e.getValue());
            var r = http.send(
                    java.net.http.HttpRequest.newBuilder(
                                    java.net.URI.create("http://127.0.0.1:" + node.server.port() + "/in/" + id))
                            .header("X-Hmac", mac)
                            .header("Content-Type", e.getKey())
                            .POST(java.net.http.HttpRequest.BodyPublishers.ofByteArray(e.getValue()))
                            .build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(e.getKey() + ": " + r.body()).isEqualTo(200);
            deliveryOf.put(
                    e.getKey(),
                    new com.fasterxml.jackson.databind.ObjectMapper()
                            .readTree(r.body())
                            .get("delivery_id")
                            .asText());
        }

        await().atMost(Duration.ofSeconds(30)).until(() -> receivedAt(dest).size() == bodies.size());
        String secret = node.call("GET", "/v1/signing-secret", null)
                .json()
                .get("secret")
                .asText();
        var verifier = new StandardWebhooksVerifier(
                List.of(SigningSecret.parse(secret)), StandardWebhooksVerifier.DEFAULT_TOLERANCE, Clock.systemUTC());
        for (LoopbackReceiver.Received got : receivedAt(dest)) {
            String type = got.header("Content-Type");
            assertThat(bodies).containsKey(type);
            assertThat(got.body()).as(type).isEqualTo(bodies.get(type));
            assertThat(verifier.verify(
                                    got.header("webhook-id"),
                                    got.header("webhook-timestamp"),
                                    got.header("webhook-signature"),
                                    got.body())
                            .valid())
                    .as(type)
                    .isTrue();
            // the delivery's request shows bytes that are not text as base64, and says so
            String deliveryId = deliveryOf.get(type);
            await().atMost(Duration.ofSeconds(15))
                    .until(() -> node.call("GET", "/v1/deliveries/" + deliveryId, null)
                            .json()
                            .hasNonNull("request"));
            JsonNode request = node.call("GET", "/v1/deliveries/" + deliveryId, null)
                    .json()
                    .get("request");
            assertThat(request.get("body_encoding").asText()).isEqualTo("base64");
            assertThat(java.util.Base64.getDecoder().decode(request.get("body").asText()))
                    .isEqualTo(bodies.get(type));
        }
    }

    @Test
    void aJsonPointerDedupReadsTheEventIdFromTheBody() {
        JsonNode s = createSource("{\"scheme\":\"github\",\"secret\":\"gh\"}", ",\"dedup\":\"json:/event/id\"");
        String body = "{\"event\":{\"id\":42}}";
        Map<String, String> h = Map.of(
                "X-Hub-Signature-256", GitHubSignatureVerifier.sign("gh", body.getBytes(StandardCharsets.UTF_8)));
        assertThat(ingest(s.get("id").asText(), body, h).json().get("event_id").asText())
                .isEqualTo("42");
        assertThat(ingest(s.get("id").asText(), body, h)
                        .json()
                        .get("deduplicated")
                        .asBoolean())
                .isTrue();
    }

    @Test
    void aBodyOverTheLimitIs413NamingTheLimitAndStoresNothing() {
        JsonNode s = stripeSource();
        String id = s.get("id").asText();
        String body = "{\"id\":\"evt_big\",\"pad\":\"" + "x".repeat(1024 * 1024) + "\"}";
        var r = ingest(id, body, stripeHeaders(STRIPE_SECRET, now(), body));
        assertThat(r.status()).as(r.raw()).isEqualTo(413);
        assertThat(r.json().at("/error/message").asText()).contains("1 MiB").contains("1048576");
        assertThat(deliveriesOf(id)).isEmpty();
    }

    @Test
    void eachSourceHasItsOwnRateLimit() {
        JsonNode s = createSource("{\"scheme\":\"github\",\"secret\":\"gh\"}", ",\"rate_limit\":1");
        String body = "{}";
        Map<String, String> forged = Map.of("X-Hub-Signature-256", "sha256=" + "00".repeat(32));
        List<Integer> statuses = new java.util.ArrayList<>();
        for (int i = 0; i < 4; i++)
            statuses.add(ingest(s.get("id").asText(), body, forged).status());
        assertThat(statuses).contains(429);
        var limited = ingest(s.get("id").asText(), body, forged);
        assertThat(limited.status()).isEqualTo(429);
        assertThat(limited.header("Retry-After")).isNotNull();
        assertThat(limited.json().at("/error/message").asText())
                .contains(s.get("id").asText());
        // another source is not held up
        JsonNode other = stripeSource();
        String ok = "{\"id\":\"evt_other\"}";
        assertThat(ingest(other.get("id").asText(), ok, stripeHeaders(STRIPE_SECRET, now(), ok))
                        .status())
                .isEqualTo(200);
    }

    @Test
    void unknownAndDeletedSourcesAre404() {
        assertThat(ingest("src_nope", "{}", Map.of()).status()).isEqualTo(404);
        String id = stripeSource().get("id").asText();
        var deleted = node.call("DELETE", "/v1/sources/" + id, null);
        assertThat(deleted.json().get("status").asText()).isEqualTo("deleted");
        String body = "{\"id\":\"evt_late\"}";
        assertThat(ingest(id, body, stripeHeaders(STRIPE_SECRET, now(), body)).status())
                .isEqualTo(404);
        assertThat(node.call("PATCH", "/v1/sources/" + id, "{\"name\":\"x\"}").status())
                .isEqualTo(400);
    }

    @Test
    void aRotatedSecretVerifiesWithTheOldOneStillAcceptedForADay() {
        String id = stripeSource().get("id").asText();
        var patched = node.call("PATCH", "/v1/sources/" + id, "{\"verify\":{\"secret\":\"whsec_rotated\"}}");
        assertThat(patched.status()).as(patched.raw()).isEqualTo(200);
        assertThat(patched.raw()).doesNotContain("whsec_rotated").doesNotContain(STRIPE_SECRET);
        assertThat(patched.json().at("/verify/previous_secret_expires_at").isNull())
                .isFalse();
        String a = "{\"id\":\"evt_new\"}";
        String b = "{\"id\":\"evt_old\"}";
        assertThat(ingest(id, a, stripeHeaders("whsec_rotated", now(), a)).status())
                .isEqualTo(200);
        assertThat(ingest(id, b, stripeHeaders(STRIPE_SECRET, now(), b)).status())
                .isEqualTo(200);
        assertThat(ingest(id, b, stripeHeaders("whsec_other", now(), b)).status())
                .isEqualTo(403);
    }

    @Test
    void badSourceInputIs400NamingTheField() {
        String dest = receiver.url("/d");
        Map<String, String> cases = Map.of(
                "{\"name\":\"a\",\"destination\":\"" + dest + "\"}",
                "verify",
                "{\"name\":\"a\",\"verify\":{\"scheme\":\"paypal\",\"secret\":\"s\"},\"destination\":\"" + dest + "\"}",
                "verify.scheme",
                "{\"name\":\"a\",\"verify\":{\"scheme\":\"stripe\"},\"destination\":\"" + dest + "\"}",
                "verify.secret",
                "{\"name\":\"a\",\"verify\":{\"scheme\":\"hmac_sha256\",\"secret\":\"s\"},\"destination\":\"" + dest
                        + "\"}",
                "verify.header",
                "{\"name\":\"a\",\"verify\":{\"scheme\":\"github\",\"secret\":\"s\",\"tolerance\":\"5m\"},\"destination\":\""
                        + dest + "\"}",
                "verify.tolerance",
                "{\"name\":\"a\",\"verify\":{\"scheme\":\"standard_webhooks\",\"secret\":\"whsec_%%%\"},\"destination\":\""
                        + dest + "\"}",
                "verify.secret",
                "{\"name\":\"a\",\"verify\":{\"scheme\":\"github\",\"secret\":\"s\"},\"destination\":\"ftp://x\"}",
                "destination",
                "{\"name\":\"a\",\"verify\":{\"scheme\":\"github\",\"secret\":\"s\"},\"destination\":\"" + dest
                        + "\",\"dedup\":\"body\"}",
                "dedup",
                "{\"name\":\"a\",\"verify\":{\"scheme\":\"github\",\"secret\":\"s\"},\"destination\":\"" + dest
                        + "\",\"colour\":1}",
                "colour");
        int before = node.call("GET", "/v1/sources?limit=100", null)
                .json()
                .get("data")
                .size();
        cases.forEach((body, param) -> {
            var r = node.call("POST", "/v1/sources", body);
            assertThat(r.status()).as(body + " -> " + r.raw()).isEqualTo(400);
            assertThat(r.json().at("/error/param").asText()).as(body).isEqualTo(param);
        });
        assertThat(node.call("GET", "/v1/sources?limit=100", null)
                        .json()
                        .get("data")
                        .size())
                .isEqualTo(before);
    }
}

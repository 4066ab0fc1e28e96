package dev.idem.server.contract;

import static dev.idem.server.contract.BadInputContract.assertRefused;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.server.ApiClientForTests;
import dev.idem.server.LoopbackReceiver;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Messages through the API with real deliveries to a loopback receiver, on every store alike: one message reaches
 * exactly the endpoints subscribed to it (event types, patterns, filter, application, enabled), each signed with its
 * own secret (checked here by hand: Standard Webhooks' HMAC-SHA256 over {@code id.timestamp.body}), under the message
 * id as {@code webhook-id}; bad input is a 400 naming the field and writes nothing; nothing crosses projects or modes.
 * Each test sends in a project of its own, so endpoints made by one never receive another's messages.
 */
abstract class MessageApiContract extends OneNodeContract {
    private static final List<String> TABLES = List.of("messages", "deliveries", "schedules", "idempotency_records");
    StoreRows rows;

    @BeforeAll
    void countRows() {
        rows = new StoreRows(db.config());
    }

    /** A fresh project's test key (index 0) and live key (index 1). */
    private String[] project() {
        return node.addProject("msg-" + UUID.randomUUID());
    }

    private ApiClientForTests.Reply call(String key, String method, String path, String body) {
        return node.api.call(method, path, key, body);
    }

    private static String id(ApiClientForTests.Reply r) {
        assertThat(r.status()).as(r.raw()).isBetween(200, 201);
        return r.json().get("id").asText();
    }

    private String path() {
        return "/m/" + UUID.randomUUID();
    }

    private String endpoint(String key, String path, String extra) {
        return id(call(key, "POST", "/v1/endpoints", "{\"url\":\"" + receiver.url(path) + "\"" + extra + "}"));
    }

    private String secret(String key, String endpointId) {
        return call(key, "GET", "/v1/endpoints/" + endpointId + "/secret", null)
                .json()
                .get("secret")
                .asText();
    }

    private List<LoopbackReceiver.Received> at(String path) {
        return receiver.requests.stream().filter(r -> r.path().equals(path)).toList();
    }

    /** Standard Webhooks' signature, computed here: base64 HMAC-SHA256 under the key after whsec_. */
    static String sign(String secret, String id, String timestamp, byte[] body) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(Base64.getDecoder().decode(secret.substring("whsec_".length())), "HmacSHA256"));
        mac.update((id + "." + timestamp + ".").getBytes(StandardCharsets.UTF_8));
        return "v1," + Base64.getEncoder().encodeToString(mac.doFinal(body));
    }

    private static Set<String> signatures(LoopbackReceiver.Received r) {
        return Set.of(r.header("webhook-signature").split(" "));
    }

    @Test
    void aMessageReachesExactlyItsSubscribersEachSignedWithItsOwnSecret() throws Exception {
        String key = project()[0];
        call(key, "POST", "/v1/applications", "{\"name\":\"A\",\"uid\":\"cust_a\"}");
        call(key, "POST", "/v1/applications", "{\"name\":\"B\",\"uid\":\"cust_b\"}");
        Map<String, String> receiving = new java.util.LinkedHashMap<>(); // path -> endpoint id
        String p1 = path(), p2 = path(), p3 = path(), p4 = path();
        receiving.put(p1, endpoint(key, p1, ",\"application\":\"cust_a\",\"event_types\":[\"invoice.paid\"]"));
        receiving.put(p2, endpoint(key, p2, ",\"application\":\"cust_a\",\"event_types\":[\"invoice.*\"]"));
        receiving.put(p3, endpoint(key, p3, ",\"application\":\"cust_a\",\"filter\":{\"data.amount\":{\"$gte\":100}}"));
        receiving.put(p4, endpoint(key, p4, ",\"application\":\"cust_a\""));
        List<String> silent = new ArrayList<>();
        for (String extra : List.of(
                ",\"application\":\"cust_a\",\"event_types\":[\"invoice.failed\"]",
                ",\"application\":\"cust_a\",\"event_types\":[\"report.*\"]",
                ",\"application\":\"cust_a\",\"filter\":{\"data.amount\":{\"$lt\":100}}",
                ",\"application\":\"cust_a\",\"disabled\":true",
                ",\"application\":\"cust_b\"",
                "")) {
            String p = path();
            endpoint(key, p, extra);
            silent.add(p);
        }
        String payload = "{\"data\":{\"amount\":1000, \"currency\":\"EUR\"},\"n\":1.0}";
        var sent = call(
                key,
                "POST",
                "/v1/messages",
                "{\"event_type\":\"invoice.paid\",\"application\":\"cust_a\",\"payload\":" + payload + "}");
        assertThat(sent.status()).as(sent.raw()).isEqualTo(201);
        String msg = sent.json().get("id").asText();
        assertThat(msg).startsWith("msg_");
        assertThat(sent.json().get("deliveries").asInt()).isEqualTo(4);
        assertThat(sent.json().get("object").asText()).isEqualTo("message");

        await().atMost(Duration.ofSeconds(30))
                .until(() -> receiving.keySet().stream().allMatch(p -> !at(p).isEmpty()));
        for (var e : receiving.entrySet()) {
            LoopbackReceiver.Received r = at(e.getKey()).get(0);
            String endpointId = e.getValue();
            assertThat(r.header("webhook-id")).isEqualTo(msg);
            assertThat(r.header("idem-message-id")).isEqualTo(msg);
            assertThat(r.header("idem-endpoint-id")).isEqualTo(endpointId);
            assertThat(r.header("idem-event-type")).isEqualTo("invoice.paid");
            assertThat(r.header("idempotency-key")).isEqualTo(msg + ":" + endpointId);
            assertThat(new String(r.body(), StandardCharsets.UTF_8)).isEqualTo(payload);
            String expected = sign(secret(key, endpointId), msg, r.header("webhook-timestamp"), r.body());
            assertThat(signatures(r)).containsExactly(expected);
            for (var other : receiving.values())
                if (!other.equals(endpointId))
                    assertThat(signatures(r))
                            .doesNotContain(sign(secret(key, other), msg, r.header("webhook-timestamp"), r.body()));
        }
        JsonNode got = call(key, "GET", "/v1/messages/" + msg, null).json();
        List<String> byEndpoint = new ArrayList<>();
        got.get("endpoint_deliveries").forEach(d -> {
            assertThat(d.get("message_id").asText()).isEqualTo(msg);
            byEndpoint.add(d.get("endpoint_id").asText());
        });
        assertThat(byEndpoint).containsExactlyInAnyOrderElementsOf(receiving.values());
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> call(key, "GET", "/v1/messages/" + msg, null)
                        .json()
                        .get("endpoint_deliveries")
                        .forEach(d -> assertThat(d.get("status").asText()).isEqualTo("succeeded")));
        for (String p : silent)
            assertThat(at(p)).as("endpoint at %s is not subscribed", p).isEmpty();
    }

    @Test
    void aMessageWithoutApplicationGoesToEveryEndpointOfTheProjectAndOneWithoutSubscribersIsKept() {
        String key = project()[0];
        call(key, "POST", "/v1/applications", "{\"name\":\"A\",\"uid\":\"cust_less\"}");
        String p1 = path(), p2 = path();
        endpoint(key, p1, "");
        endpoint(key, p2, ",\"application\":\"cust_less\"");
        var sent = call(key, "POST", "/v1/messages", "{\"event_type\":\"user.created\",\"payload\":{\"id\":1}}");
        assertThat(sent.json().get("deliveries").asInt()).as(sent.raw()).isEqualTo(2);
        await().atMost(Duration.ofSeconds(30)).until(() -> !at(p1).isEmpty() && !at(p2).isEmpty());

        String quiet = project()[0];
        call(quiet, "POST", "/v1/applications", "{\"name\":\"Q\",\"uid\":\"cust_quiet\"}");
        endpoint(quiet, path(), ",\"event_types\":[\"somebody.*\"]");
        endpoint(quiet, path(), ",\"application\":\"cust_quiet\",\"event_types\":[\"somebody.*\"]");
        var none = call(quiet, "POST", "/v1/messages", "{\"event_type\":\"nobody.listens\",\"payload\":[1,2]}");
        var kept = call(
                quiet,
                "POST",
                "/v1/messages",
                "{\"event_type\":\"nobody.listens\",\"payload\":[1,2],\"application\":\"cust_quiet\"}");
        for (var r : List.of(none, kept)) {
            assertThat(r.status()).as(r.raw()).isEqualTo(201);
            assertThat(r.json().get("deliveries").asInt()).isZero();
            JsonNode got = call(quiet, "GET", "/v1/messages/" + id(r), null).json();
            assertThat(got.get("payload").toString()).isEqualTo("[1,2]");
            assertThat(got.get("endpoint_deliveries")).isEmpty();
        }
    }

    static Stream<Arguments> refused() {
        return Stream.of(
                Arguments.of("{\"payload\":{}}", "parameter_missing", "event_type"),
                Arguments.of("{\"event_type\":\"a b\",\"payload\":{}}", "parameter_invalid", "event_type"),
                Arguments.of("{\"event_type\":\"a.b\"}", "parameter_missing", "payload"),
                Arguments.of(
                        "{\"event_type\":\"a.b\",\"payload\":{},\"application\":\"nobody\"}",
                        "application_unknown",
                        "application"),
                Arguments.of("{\"event_type\":\"a.b\",\"payload\":{},\"colour\":1}", "parameter_unknown", "colour"),
                Arguments.of(
                        "{\"event_type\":\"a.b\",\"payload\":{},\"idempotency_key\":5}",
                        "parameter_invalid_type",
                        "idempotency_key"),
                Arguments.of(
                        "{\"event_type\":\"order.placed\",\"payload\":{\"order\":{\"lines\":[{\"qty\":1},{\"qty\":\"2\"}]}}}",
                        "payload_invalid",
                        "payload.order.lines[1].qty"),
                Arguments.of("{\"event_type\":\"order.placed\",\"payload\":{}}", "payload_invalid", "payload"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refused")
    void badInputIsA400NamingTheFieldAndWritesNothing(String body, String code, String param) {
        String key = project()[0];
        var schema = call(
                key,
                "POST",
                "/v1/event-types",
                "{\"name\":\"order.placed\",\"schema\":{\"type\":\"object\",\"required\":[\"order\"],"
                        + "\"properties\":{\"order\":{\"type\":\"object\",\"properties\":{\"lines\":{\"type\":\"array\","
                        + "\"items\":{\"type\":\"object\",\"properties\":{\"qty\":{\"type\":\"integer\"}}}}}}}}}");
        assertThat(schema.status()).as(schema.raw()).isEqualTo(201);
        endpoint(key, path(), "");
        var before = TABLES.stream().map(rows::count).toList();
        assertRefused(call(key, "POST", "/v1/messages", body), code, param, body);
        assertThat(TABLES.stream().map(rows::count).toList())
                .as("a refused message wrote nothing")
                .isEqualTo(before);
        var valid = call(
                key,
                "POST",
                "/v1/messages",
                "{\"event_type\":\"order.placed\",\"payload\":{\"order\":{\"lines\":[{\"qty\":2}]}}}");
        assertThat(valid.status()).as(valid.raw()).isEqualTo(201);
    }

    @Test
    void aDedupIdOrAnIdempotencyKeySendsOnce() {
        String key = project()[0];
        String p = path();
        endpoint(key, p, "");
        String body = "{\"event_type\":\"a.b\",\"payload\":{\"x\":1},\"dedup_id\":\"evt-1\"}";
        var first = call(key, "POST", "/v1/messages", body);
        var second = call(key, "POST", "/v1/messages", body.replace("\"x\":1", "\"x\":2"));
        assertThat(first.status()).isEqualTo(201);
        assertThat(second.status()).as(second.raw()).isEqualTo(200);
        assertThat(second.header("Idem-Deduplicated")).isEqualTo("true");
        assertThat(second.json().get("id").asText())
                .isEqualTo(first.json().get("id").asText());

        String again = "{\"event_type\":\"a.b\",\"payload\":{\"y\":1},\"idempotency_key\":\"inv_7\"}";
        var a = node.api.call("POST", "/v1/messages", key, again, Map.of("Idempotency-Key", "req-1"));
        var b = node.api.call("POST", "/v1/messages", key, again, Map.of("Idempotency-Key", "req-1"));
        assertThat(b.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(b.raw()).isEqualTo(a.raw());
        String msg = a.json().get("id").asText();
        await().atMost(Duration.ofSeconds(30)).until(() -> at(p).size() == 2);
        Set<String> ids = at(p).stream().map(r -> r.header("webhook-id")).collect(Collectors.toSet());
        assertThat(ids).containsExactlyInAnyOrder(first.json().get("id").asText(), msg);
        assertThat(at(p).stream().map(r -> r.header("idempotency-key")))
                .contains("inv_7:" + at(p).get(0).header("idem-endpoint-id"));
    }

    @Test
    void messagesAreListedByEventTypeApplicationAndTime() {
        String key = project()[0];
        call(key, "POST", "/v1/applications", "{\"name\":\"A\",\"uid\":\"lister\"}");
        Instant before = Instant.now().minusSeconds(1);
        String a = id(call(key, "POST", "/v1/messages", "{\"event_type\":\"t.one\",\"payload\":1}"));
        String b = id(call(
                key, "POST", "/v1/messages", "{\"event_type\":\"t.two\",\"payload\":2,\"application\":\"lister\"}"));
        String c = id(call(key, "POST", "/v1/messages", "{\"event_type\":\"t.two\",\"payload\":3}"));
        assertThat(ids(call(key, "GET", "/v1/messages", null))).containsExactly(c, b, a);
        assertThat(ids(call(key, "GET", "/v1/messages?event_type=t.two", null))).containsExactly(c, b);
        assertThat(ids(call(key, "GET", "/v1/messages?application=lister", null)))
                .containsExactly(b);
        assertThat(ids(call(key, "GET", "/v1/messages?limit=1&starting_after=" + c, null)))
                .containsExactly(b);
        assertThat(ids(call(key, "GET", "/v1/messages?since=" + Instant.now().plusSeconds(60), null)))
                .isEmpty();
        assertThat(ids(call(
                        key,
                        "GET",
                        "/v1/messages?since=" + before + "&until="
                                + Instant.now().plusSeconds(1),
                        null)))
                .containsExactly(c, b, a);
        assertRefused(
                call(key, "GET", "/v1/messages?since=yesterday", null), "parameter_invalid_time", "since", "since");
    }

    @Test
    void theSearchByDeliveryStateEventTypeAndTimeIsMadeInTheStoreAcrossPages() {
        String key = project()[0];
        call(key, "POST", "/v1/applications", "{\"name\":\"S\",\"uid\":\"searcher\"}");
        String p = path();
        endpoint(key, p, ",\"application\":\"searcher\"");
        List<JsonNode> sent = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            String type = i % 2 == 0 ? "s.one" : "s.two";
            var r = call(
                    key,
                    "POST",
                    "/v1/messages",
                    "{\"event_type\":\"" + type + "\",\"application\":\"searcher\",\"payload\":" + i + "}");
            assertThat(r.status()).as(r.raw()).isEqualTo(201);
            sent.add(r.json());
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> at(p).size() == 7);
        List<String> deliveries = new ArrayList<>();
        for (JsonNode m : sent) {
            String msg = m.get("id").asText();
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> call(key, "GET", "/v1/messages/" + msg, null)
                            .json()
                            .at("/endpoint_deliveries/0/status")
                            .asText()
                            .equals("succeeded"));
            deliveries.add(call(key, "GET", "/v1/messages/" + msg, null)
                    .json()
                    .at("/endpoint_deliveries/0/id")
                    .asText());
        }
        rows.markDead(deliveries.get(1), Instant.now());
        rows.markDead(deliveries.get(4), Instant.now());
        String m1 = sent.get(1).get("id").asText(), m4 = sent.get(4).get("id").asText();

        assertThat(walk(key, "/v1/messages?delivery_status=dead&limit=1")).containsExactly(m4, m1);
        assertThat(walk(key, "/v1/messages?delivery_status=dead&event_type=s.two&application=searcher&limit=1"))
                .containsExactly(m1);
        List<String> succeeded = new ArrayList<>();
        for (int i = 6; i >= 0; i--)
            if (i != 1 && i != 4) succeeded.add(sent.get(i).get("id").asText());
        assertThat(walk(key, "/v1/messages?delivery_status=succeeded&limit=2")).containsExactlyElementsOf(succeeded);
        assertThat(walk(key, "/v1/messages?delivery_status=retrying,%20dead&limit=3"))
                .containsExactly(m4, m1);
        assertThat(walk(key, "/v1/messages?delivery_status=scheduled,delivering"))
                .isEmpty();
        // a time range: [since, until) on the time each was sent, with a state
        Instant since = Instant.parse(sent.get(1).get("created_at").asText());
        Instant until = Instant.parse(sent.get(4).get("created_at").asText());
        List<String> inRange = new ArrayList<>();
        for (int i = 6; i >= 0; i--) {
            Instant at = Instant.parse(sent.get(i).get("created_at").asText());
            if ((i == 1 || i == 4) && !at.isBefore(since) && at.isBefore(until))
                inRange.add(sent.get(i).get("id").asText());
        }
        assertThat(inRange).contains(m1);
        assertThat(walk(key, "/v1/messages?delivery_status=dead&since=" + since + "&until=" + until + "&limit=1"))
                .containsExactlyElementsOf(inRange);

        for (String[] bad : List.of(
                new String[] {"delivery_status=lost", "parameter_invalid", "delivery_status"},
                new String[] {"delivery_status=dead,", "parameter_invalid", "delivery_status"},
                new String[] {"event_type=not%20a%20name", "parameter_invalid", "event_type"},
                new String[] {"until=2026-01-01", "parameter_invalid_time", "until"},
                new String[] {"since=2026-03-10T17:00:00Z&until=2026-03-10T17:00:00Z", "parameter_invalid_time", "until"
                })) assertRefused(call(key, "GET", "/v1/messages?" + bad[0], null), bad[1], bad[2], bad[0]);
    }

    @Test
    void deliveriesAreListedByTheirMessagesEventTypeAndByWhenTheyWereCreated() {
        String key = project()[0];
        String ep = endpoint(key, path(), "");
        Instant before = Instant.now().minusSeconds(1);
        List<JsonNode> made = new ArrayList<>();
        for (String type : List.of("d.one", "d.two", "d.two")) {
            String msg = id(call(key, "POST", "/v1/messages", "{\"event_type\":\"" + type + "\",\"payload\":{}}"));
            // a message's deliveries are written with it
            made.add(call(key, "GET", "/v1/messages/" + msg, null).json().at("/endpoint_deliveries/0"));
        }
        String d1 = made.get(0).get("id").asText(), d2 = made.get(1).get("id").asText();
        String d3 = made.get(2).get("id").asText(),
                second = made.get(1).get("created_at").asText();

        assertThat(walk(key, "/v1/deliveries?event_type=d.two&limit=1")).containsExactly(d3, d2);
        assertThat(ids(call(key, "GET", "/v1/deliveries?endpoint_id=" + ep + "&event_type=d.one", null)))
                .containsExactly(d1);
        assertThat(ids(call(
                        key,
                        "GET",
                        "/v1/deliveries?since=" + before + "&until="
                                + Instant.now().plusSeconds(1),
                        null)))
                .containsExactly(d3, d2, d1);
        assertThat(ids(call(key, "GET", "/v1/deliveries?since=" + second, null)))
                .contains(d3, d2);
        assertThat(ids(call(key, "GET", "/v1/deliveries?event_type=d.two&until=" + second, null)))
                .doesNotContain(d3, d2);
        assertThat(ids(call(key, "GET", "/v1/deliveries?since=" + Instant.now().plusSeconds(60), null)))
                .isEmpty();

        var counts = TABLES.stream().map(rows::count).toList();
        for (String[] bad : List.of(
                new String[] {"event_type=not%20a%20name", "parameter_invalid", "event_type"},
                new String[] {"since=yesterday", "parameter_invalid_time", "since"},
                new String[] {"endpoint_id=" + ep + "&until=2026-01-01", "parameter_invalid_time", "until"},
                new String[] {"since=2026-03-10T17:00:00Z&until=2026-03-10T17:00:00Z", "parameter_invalid_time", "until"
                })) assertRefused(call(key, "GET", "/v1/deliveries?" + bad[0], null), bad[1], bad[2], bad[0]);
        assertThat(TABLES.stream().map(rows::count).toList()).isEqualTo(counts);
    }

    /** Every page of a message list, following its cursor: the ids, newest first. */
    private List<String> walk(String key, String query) {
        List<String> out = new ArrayList<>();
        String after = null;
        while (true) {
            var r = call(key, "GET", query + (after == null ? "" : "&starting_after=" + after), null);
            List<String> page = ids(r);
            out.addAll(page);
            if (!r.json().get("has_more").asBoolean()) return out;
            after = page.get(page.size() - 1);
        }
    }

    private static List<String> ids(ApiClientForTests.Reply r) {
        assertThat(r.status()).as(r.raw()).isEqualTo(200);
        List<String> out = new ArrayList<>();
        r.json().get("data").forEach(m -> out.add(m.get("id").asText()));
        return out;
    }

    @Test
    void nothingCrossesProjectsOrModes() {
        String[] mine = project();
        String[] theirs = project();
        String mineTest = path(), mineLive = path(), theirsTest = path();
        endpoint(mine[0], mineTest, "");
        endpoint(mine[1], mineLive, "");
        endpoint(theirs[0], theirsTest, "");
        String msg = id(call(mine[0], "POST", "/v1/messages", "{\"event_type\":\"x.y\",\"payload\":{}}"));
        await().atMost(Duration.ofSeconds(30)).until(() -> !at(mineTest).isEmpty());
        for (String other : List.of(mine[1], theirs[0], theirs[1])) {
            assertThat(call(other, "GET", "/v1/messages/" + msg, null).status()).isEqualTo(404);
            assertThat(ids(call(other, "GET", "/v1/messages", null))).doesNotContain(msg);
        }
        String ep = call(mine[0], "GET", "/v1/messages/" + msg, null)
                .json()
                .at("/endpoint_deliveries/0/id")
                .asText();
        assertThat(call(theirs[0], "GET", "/v1/deliveries/" + ep, null).status())
                .isEqualTo(404);
        assertThat(at(mineLive)).isEmpty();
        assertThat(at(theirsTest)).isEmpty();
        assertThat(call(
                                theirs[0],
                                "POST",
                                "/v1/messages",
                                "{\"event_type\":\"x.y\",\"payload\":{},\"application\":\"x\"}")
                        .status())
                .isEqualTo(400);
    }

    @Test
    void aRotatedEndpointSecretSignsBesideTheNewOneAndAnotherEndpointIsUntouched() throws Exception {
        String key = project()[0];
        String rotatedPath = path(), plainPath = path();
        String rotated = endpoint(key, rotatedPath, "");
        String plain = endpoint(key, plainPath, "");
        String old = secret(key, rotated);
        String plainSecret = secret(key, plain);
        var r = call(key, "POST", "/v1/endpoints/" + rotated + "/secret/rotate", null);
        assertThat(r.status()).as(r.raw()).isEqualTo(200);
        String current = r.json().get("secret").asText();
        // the engine keeps opened secrets for up to a second
        await().pollDelay(Duration.ofMillis(1100)).atMost(Duration.ofSeconds(5)).until(() -> true);
        String msg = id(call(key, "POST", "/v1/messages", "{\"event_type\":\"x.y\",\"payload\":{\"k\":\"v\"}}"));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> !at(rotatedPath).isEmpty() && !at(plainPath).isEmpty());
        LoopbackReceiver.Received got = at(rotatedPath).get(0);
        String ts = got.header("webhook-timestamp");
        assertThat(signatures(got))
                .containsExactlyInAnyOrder(sign(current, msg, ts, got.body()), sign(old, msg, ts, got.body()));
        LoopbackReceiver.Received other = at(plainPath).get(0);
        assertThat(signatures(other))
                .containsExactly(sign(plainSecret, msg, other.header("webhook-timestamp"), other.body()));
    }
}

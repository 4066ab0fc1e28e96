package dev.idem.server.contract;

import static dev.idem.server.contract.BadInputContract.assertRefused;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.server.LoopbackReceiver;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What a portal session reads and does with its application's messages, on every store alike (the server of
 * {@link PortalAccessContract}, started once): it lists and reads only messages sent to its application and only
 * deliveries to its application's endpoints (another's id is a 404); it replays one only with {@code replay}; it
 * sends an endpoint a test event only with {@code send_test}, a real delivery signed with the endpoint's secret and
 * marked {@code Idem-Test: true}; what it does is in the audit log.
 */
abstract class PortalDeliveriesContract extends PortalAccessContract {
    private static final AtomicInteger PATHS = new AtomicInteger();

    private String endpointAt(String app, String path, String extra) {
        return id(key(
                "POST",
                "/v1/endpoints",
                "{\"url\":\"" + receiver.url(path) + "\",\"application\":\"" + app + "\"" + extra + "}"));
    }

    private JsonNode send(String app, String eventType) {
        var r = key(
                "POST",
                "/v1/messages",
                "{\"event_type\":\"" + eventType + "\",\"application\":\"" + app + "\",\"payload\":{\"n\":1}}");
        assertThat(r.status()).as(r.raw()).isEqualTo(201);
        return r.json();
    }

    private List<LoopbackReceiver.Received> at(String path) {
        return receiver.requests.stream().filter(r -> r.path().equals(path)).toList();
    }

    private static String path() {
        return "/portal-dlv-" + PATHS.incrementAndGet();
    }

    /** The delivery of message {@code msg}, once it has succeeded. */
    private String succeededDelivery(String msg) {
        await().atMost(Duration.ofSeconds(30))
                .until(() -> key("GET", "/v1/messages/" + msg, null)
                        .json()
                        .get("endpoint_deliveries")
                        .get(0)
                        .get("status")
                        .asText()
                        .equals("succeeded"));
        return key("GET", "/v1/messages/" + msg, null)
                .json()
                .get("endpoint_deliveries")
                .get(0)
                .get("id")
                .asText();
    }

    @Test
    void aSessionReadsOnlyItsOwnApplicationsMessagesAndDeliveries() {
        String mine = app("msgs_mine");
        String theirs = app("msgs_theirs");
        endpointAt(mine, path(), "");
        endpointAt(theirs, path(), "");
        String myMsg = send(mine, "order.created").get("id").asText();
        String theirMsg = send(theirs, "order.created").get("id").asText();
        String myDelivery = succeededDelivery(myMsg);
        String theirDelivery = succeededDelivery(theirMsg);
        String s = session(mine, "{\"capabilities\":[\"view\",\"replay\"]}");

        var list = api.call("GET", "/v1/messages?application=msgs_mine", s, null);
        assertThat(list.status()).as(list.raw()).isEqualTo(200);
        assertThat(list.json().get("data").findValuesAsText("id")).containsExactly(myMsg);
        // the search by delivery state stays within the application too
        var searched = api.call("GET", "/v1/messages?application=msgs_mine&delivery_status=succeeded", s, null);
        assertThat(searched.status()).as(searched.raw()).isEqualTo(200);
        assertThat(searched.json().get("data").findValuesAsText("id")).containsExactly(myMsg);
        var one = api.call("GET", "/v1/messages/" + myMsg, s, null);
        assertThat(one.status()).as(one.raw()).isEqualTo(200);
        assertThat(one.json().get("endpoint_deliveries").findValuesAsText("id")).containsExactly(myDelivery);
        var delivery = api.call("GET", "/v1/deliveries/" + myDelivery, s, null);
        assertThat(delivery.status()).as(delivery.raw()).isEqualTo(200);
        JsonNode attempt = delivery.json().get("attempts").get(0);
        assertThat(attempt.get("status_code").asInt()).as(delivery.raw()).isEqualTo(200);
        assertThat(delivery.json().get("request").get("headers").toString()).contains(myMsg);

        assertStatus(api.call("GET", "/v1/messages?application=" + theirs, s, null), 404, "resource_missing");
        assertStatus(api.call("GET", "/v1/messages", s, null), 400, "parameter_missing");
        for (String other : List.of(theirMsg, "msg_nothere"))
            assertStatus(api.call("GET", "/v1/messages/" + other, s, null), 404, "resource_missing");
        for (String other : List.of(theirDelivery, "dlv_nothere")) {
            assertStatus(api.call("GET", "/v1/deliveries/" + other, s, null), 404, "resource_missing");
            assertStatus(api.call("POST", "/v1/deliveries/" + other + "/replay", s, "{}"), 404, "resource_missing");
        }
        // deliveries are listed within its application only; endpoint_id narrows within it
        var deliveries = api.call("GET", "/v1/deliveries?application=msgs_mine", s, null);
        assertThat(deliveries.status()).as(deliveries.raw()).isEqualTo(200);
        assertThat(deliveries.json().get("data").findValuesAsText("id")).containsExactly(myDelivery);
        String theirEndpoint = key("GET", "/v1/deliveries/" + theirDelivery, null)
                .json()
                .get("endpoint_id")
                .asText();
        var narrowed = api.call("GET", "/v1/deliveries?application=" + mine + "&endpoint_id=" + theirEndpoint, s, null);
        assertThat(narrowed.status()).as(narrowed.raw()).isEqualTo(200);
        assertThat(narrowed.json().get("data")).isEmpty();
        assertStatus(api.call("GET", "/v1/deliveries?application=" + theirs, s, null), 404, "resource_missing");
        assertStatus(api.call("GET", "/v1/deliveries", s, null), 400, "parameter_missing");
        assertThat(key("GET", "/v1/deliveries/" + theirDelivery, null)
                        .json()
                        .get("attempt_count")
                        .asInt())
                .isEqualTo(1);
    }

    @Test
    void replayNeedsTheReplayCapabilityAndIsInTheAuditLog() {
        String app = app("replayer");
        String p = path();
        endpointAt(app, p, "");
        String delivery = succeededDelivery(send(app, "order.paid").get("id").asText());
        String viewer = session(app, "{\"capabilities\":[\"view\"]}");
        assertStatus(
                api.call("POST", "/v1/deliveries/" + delivery + "/replay", viewer, "{}"),
                403,
                "portal_capability_missing");
        assertThat(key("GET", "/v1/deliveries/" + delivery, null)
                        .json()
                        .get("status")
                        .asText())
                .isEqualTo("succeeded");
        assertThat(at(p)).hasSize(1);

        String replayer = session(app, "{\"capabilities\":[\"view\",\"replay\"],\"session\":\"ops\"}");
        var replayed = api.call("POST", "/v1/deliveries/" + delivery + "/replay", replayer, "{}");
        assertThat(replayed.status()).as(replayed.raw()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(30)).until(() -> at(p).size() == 2);
        JsonNode entry = key("GET", "/v1/audit-log?application=replayer", null)
                .json()
                .get("data")
                .get(0);
        assertThat(entry.get("action").asText()).isEqualTo("delivery.replay");
        assertThat(entry.get("object_id").asText()).isEqualTo(delivery);
        assertThat(entry.get("actor").get("session").asText()).isEqualTo("ops");
    }

    @Test
    void aSessionWithReplayReplaysItsEndpointsDeadDeliveriesSinceATimeAndNoOtherApplications() {
        String app = app("bulk_mine");
        String p = path();
        String ep = endpointAt(app, p, "");
        String theirs = endpointAt(app("bulk_theirs"), path(), "");
        String old = succeededDelivery(send(app, "order.paid").get("id").asText());
        String recent = succeededDelivery(send(app, "order.paid").get("id").asText());
        java.time.Instant now = clock.instant();
        rows.markDead(old, now.minus(Duration.ofHours(3)));
        rows.markDead(recent, now.minus(Duration.ofMinutes(10)));
        String body = "{\"status\":\"dead\",\"endpoint_id\":\"" + ep + "\",\"since\":\""
                + now.minus(Duration.ofHours(1)) + "\"}";

        String viewer = session(app, "{\"capabilities\":[\"view\"]}");
        assertStatus(api.call("POST", "/v1/deliveries/replay", viewer, body), 403, "portal_capability_missing");
        String replayer = session(app, "{\"capabilities\":[\"view\",\"replay\"],\"session\":\"ops\"}");
        assertStatus(
                api.call(
                        "POST",
                        "/v1/deliveries/replay",
                        replayer,
                        "{\"status\":\"dead\",\"endpoint_id\":\"" + theirs + "\"}"),
                404,
                "resource_missing");
        assertStatus(
                api.call("POST", "/v1/deliveries/replay", replayer, "{\"status\":\"dead\"}"), 400, "parameter_missing");
        assertThat(at(p)).as("nothing replayed by a refused call").hasSize(2);

        var replayed = api.call("POST", "/v1/deliveries/replay", replayer, body);
        assertThat(replayed.status()).as(replayed.raw()).isEqualTo(200);
        assertThat(replayed.json().get("replayed").asInt()).as(replayed.raw()).isEqualTo(1);
        await().atMost(Duration.ofSeconds(30)).until(() -> at(p).size() == 3);
        assertThat(at(p).get(2).header("Idem-Attempt")).isEqualTo("2");
        assertThat(key("GET", "/v1/deliveries/" + old, null)
                        .json()
                        .get("status")
                        .asText())
                .as("dead before since")
                .isEqualTo("dead");
        JsonNode entry = key("GET", "/v1/audit-log?application=bulk_mine", null)
                .json()
                .get("data")
                .get(0);
        assertThat(entry.get("action").asText()).isEqualTo("deliveries.replay");
        assertThat(entry.get("object_id").asText()).isEqualTo(ep);
        assertThat(entry.get("actor").get("session").asText()).isEqualTo("ops");
    }

    @Test
    void aTestEventIsARealSignedDeliveryToThatEndpointAloneMarkedAsATest() throws Exception {
        String app = app("tester");
        String example = "{\"id\":\"inv_1\",\"amount\":250}";
        var type = key(
                "POST",
                "/v1/event-types",
                "{\"name\":\"invoice.sent\",\"description\":\"An invoice went out\",\"example\":" + example + "}");
        assertThat(type.status()).as(type.raw()).isBetween(200, 201);
        key("POST", "/v1/event-types", "{\"name\":\"invoice.bare\"}");
        String p = path();
        String quiet = path();
        // subscribed to something else: a test reaches it anyway, and only it
        String ep = endpointAt(app, p, ",\"event_types\":[\"order.*\"]");
        endpointAt(app, quiet, "");
        String theirs = endpointAt(app("tester_theirs"), path(), "");
        String s = session(app, "{\"capabilities\":[\"view\",\"send_test\"],\"session\":\"qa\"}");
        String body = "{\"event_type\":\"invoice.sent\"}";

        assertStatus(
                api.call("POST", "/v1/endpoints/" + ep + "/send-test", session(app, "{}"), body),
                403,
                "portal_capability_missing");
        assertStatus(api.call("POST", "/v1/endpoints/" + theirs + "/send-test", s, body), 404, "resource_missing");
        long messages = rows.count("messages");
        assertRefused(
                api.call("POST", "/v1/endpoints/" + ep + "/send-test", s, "{\"event_type\":\"nope.none\"}"),
                "event_type_unknown",
                "event_type",
                "an event type not in the catalogue");
        assertRefused(
                api.call("POST", "/v1/endpoints/" + ep + "/send-test", s, "{\"event_type\":\"invoice.bare\"}"),
                "event_type_without_example",
                "event_type",
                "an event type without an example");
        assertRefused(
                api.call("POST", "/v1/endpoints/" + ep + "/send-test", s, "{}"),
                "parameter_missing",
                "event_type",
                "no event type");
        assertThat(rows.count("messages")).isEqualTo(messages);

        var sent = api.call("POST", "/v1/endpoints/" + ep + "/send-test", s, body);
        assertThat(sent.status()).as(sent.raw()).isEqualTo(201);
        String msg = sent.json().get("id").asText();
        assertThat(sent.json().get("application").asText()).isEqualTo(app);
        assertThat(sent.json().get("endpoint_deliveries").findValuesAsText("endpoint_id"))
                .containsExactly(ep);
        await().atMost(Duration.ofSeconds(30)).until(() -> !at(p).isEmpty());
        LoopbackReceiver.Received got = at(p).get(0);
        assertThat(got.header("idem-test")).isEqualTo("true");
        assertThat(got.header("webhook-id")).isEqualTo(msg);
        assertThat(got.header("idem-event-type")).isEqualTo("invoice.sent");
        assertThat(new String(got.body(), StandardCharsets.UTF_8)).isEqualTo(example);
        String secret = key("GET", "/v1/endpoints/" + ep + "/secret", null)
                .json()
                .get("secret")
                .asText();
        assertThat(Set.of(got.header("webhook-signature").split(" ")))
                .contains(MessageApiContract.sign(secret, msg, got.header("webhook-timestamp"), got.body()));
        assertThat(at(quiet)).isEmpty();

        JsonNode entry = key("GET", "/v1/audit-log?application=tester", null)
                .json()
                .get("data")
                .get(0);
        assertThat(entry.get("action").asText()).isEqualTo("endpoint.send_test");
        assertThat(entry.get("object_id").asText()).isEqualTo(ep);
        assertThat(entry.get("fields").toString()).isEqualTo("[\"event_type\"]");
    }
}

package dev.idem.server.contract;

import static dev.idem.server.contract.BadInputContract.assertRefused;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.server.ApiClientForTests;
import dev.idem.server.LoopbackReceiver;
import dev.idem.wire.GitHubSignatureVerifier;
import dev.idem.wire.StripeSignatureVerifier;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Inbound sources whose destination is a fan-out target, on every store alike: a verified event becomes one message
 * of the type the target fixes or the event names (a header, a JSON pointer), delivered to each subscribed endpoint
 * of a loopback receiver; the provider's retry of the same event makes no second message; bad destinations are 400
 * naming the field, and events a message cannot carry are 400 writing nothing. Each test has an application of its own.
 */
abstract class SourceFanOutContract extends OneNodeContract {
    private static final String SECRET = "It's a Secret to Everybody";

    private static String id(ApiClientForTests.Reply r) {
        assertThat(r.status()).as(r.raw()).isBetween(200, 201);
        return r.json().get("id").asText();
    }

    private String application() {
        String uid = "cust_" + UUID.randomUUID();
        id(call("POST", "/v1/applications", "{\"name\":\"C\",\"uid\":\"" + uid + "\"}"));
        return uid;
    }

    private String endpoint(String uid, String eventTypes, String path) {
        return id(call(
                "POST",
                "/v1/endpoints",
                "{\"url\":\"" + receiver.url(path) + "\",\"application\":\"" + uid + "\",\"event_types\":" + eventTypes
                        + "}"));
    }

    private JsonNode source(String verify, String destination) {
        var r = call(
                "POST",
                "/v1/sources",
                "{\"name\":\"s\",\"verify\":" + verify + ",\"destination\":" + destination + "}");
        assertThat(r.status()).as(r.raw()).isEqualTo(201);
        return r.json();
    }

    private ApiClientForTests.Reply github(String sourceId, String event, String delivery, String body) {
        return node.api.call(
                "POST",
                "/in/" + sourceId,
                null,
                body,
                Map.of(
                        "X-Hub-Signature-256",
                        GitHubSignatureVerifier.sign(SECRET, body.getBytes(StandardCharsets.UTF_8)),
                        "X-GitHub-Delivery",
                        delivery,
                        "X-GitHub-Event",
                        event,
                        "Content-Type",
                        "application/json"));
    }

    private List<LoopbackReceiver.Received> at(String path) {
        return receiver.requests.stream().filter(r -> r.path().equals(path)).toList();
    }

    @Test
    void aGithubEventFansOutToTheEndpointsOfTheTypeItsHeaderNamesAndARetryMakesNoSecondMessage() {
        String uid = application();
        String pushPath = "/g/" + UUID.randomUUID(), otherPath = "/g/" + UUID.randomUUID();
        String pushEndpoint = endpoint(uid, "[\"push\"]", pushPath);
        String allEndpoint = endpoint(uid, "[\"push\",\"issues\"]", otherPath);
        JsonNode s = source(
                "{\"scheme\":\"github\",\"secret\":\"" + SECRET + "\"}",
                "{\"event_type\":{\"from\":\"header:X-GitHub-Event\"},\"application\":\"" + uid + "\"}");
        assertThat(s.get("destination").get("event_type").get("from").asText()).isEqualTo("header:X-GitHub-Event");
        assertThat(s.get("destination").get("application").asText()).startsWith("app_");
        String sourceId = s.get("id").asText();
        String body = "{\"ref\":\"refs/heads/main\"}";
        String delivery = UUID.randomUUID().toString();

        var first = github(sourceId, "push", delivery, body);
        assertThat(first.status()).as(first.raw()).isEqualTo(200);
        assertThat(first.json().get("event_type").asText()).isEqualTo("push");
        assertThat(first.json().get("deliveries").asInt()).isEqualTo(2);
        String messageId = first.json().get("message_id").asText();
        var again = github(sourceId, "push", delivery, body);
        assertThat(again.json().get("deduplicated").asBoolean()).isTrue();
        assertThat(again.json().get("message_id").asText()).isEqualTo(messageId);

        await().atMost(Duration.ofSeconds(30))
                .until(() -> !at(pushPath).isEmpty() && !at(otherPath).isEmpty());
        for (String[] pe : List.of(new String[] {pushPath, pushEndpoint}, new String[] {otherPath, allEndpoint})) {
            LoopbackReceiver.Received got = at(pe[0]).get(0);
            assertThat(got.header("webhook-id")).isEqualTo(messageId);
            assertThat(got.header("idem-endpoint-id")).isEqualTo(pe[1]);
            assertThat(got.header("idem-event-type")).isEqualTo("push");
            assertThat(new String(got.body(), StandardCharsets.UTF_8)).isEqualTo(body);
        }
        JsonNode m = call("GET", "/v1/messages/" + messageId, null).json();
        assertThat(m.get("endpoint_deliveries")).hasSize(2);
        assertThat(m.get("dedup_id").asText()).isEqualTo(delivery);

        var issues = github(sourceId, "issues", UUID.randomUUID().toString(), "{\"action\":\"opened\"}");
        assertThat(issues.json().get("deliveries").asInt()).as(issues.raw()).isEqualTo(1);
        var star = github(sourceId, "star", UUID.randomUUID().toString(), "{}");
        assertThat(star.json().get("deliveries").asInt()).as(star.raw()).isZero();
    }

    @Test
    void aStripeEventTakesItsTypeFromTheBodyAndAFixedTypeGoesToEveryProjectEndpointOfIt() {
        String uid = application();
        String path = "/s/" + UUID.randomUUID();
        String paid = endpoint(uid, "[\"invoice.paid\"]", path);
        String secret = "whsec_test_fanout_stripe";
        String sourceId = source(
                        "{\"scheme\":\"stripe\",\"secret\":\"" + secret + "\"}",
                        "{\"event_type\":{\"from\":\"json:/type\"},\"application\":\"" + uid + "\"}")
                .get("id")
                .asText();
        String body = "{\"id\":\"evt_" + UUID.randomUUID() + "\",\"type\":\"invoice.paid\",\"data\":{}}";
        var r = node.api.call(
                "POST",
                "/in/" + sourceId,
                null,
                body,
                Map.of(
                        "Stripe-Signature",
                        StripeSignatureVerifier.sign(
                                secret, System.currentTimeMillis() / 1000, body.getBytes(StandardCharsets.UTF_8)),
                        "Content-Type",
                        "application/json"));
        assertThat(r.status()).as(r.raw()).isEqualTo(200);
        assertThat(r.json().get("event_type").asText()).isEqualTo("invoice.paid");
        assertThat(r.json().get("deliveries").asInt()).isEqualTo(1);
        await().atMost(Duration.ofSeconds(30)).until(() -> !at(path).isEmpty());
        assertThat(at(path).get(0).header("idem-endpoint-id")).isEqualTo(paid);

        String fixedType = "deploy.finished" + UUID.randomUUID().toString().replace("-", "");
        String fixed = source(
                        "{\"scheme\":\"github\",\"secret\":\"" + SECRET + "\"}",
                        "{\"event_type\":\"" + fixedType + "\",\"application\":\"" + uid + "\"}")
                .get("id")
                .asText();
        String fixedPath = "/s/" + UUID.randomUUID();
        endpoint(uid, "[\"" + fixedType + "\"]", fixedPath);
        var sent = github(fixed, "push", UUID.randomUUID().toString(), "{\"a\":1}");
        assertThat(sent.json().get("event_type").asText()).as(sent.raw()).isEqualTo(fixedType);
        assertThat(sent.json().get("deliveries").asInt()).isEqualTo(1);
    }

    @Test
    void anEventThatIsNotJsonOrNamesNoTypeIs400AndWritesNothing() {
        String uid = application();
        endpoint(uid, "null", "/n/" + UUID.randomUUID());
        String sourceId = source(
                        "{\"scheme\":\"github\",\"secret\":\"" + SECRET + "\"}",
                        "{\"event_type\":{\"from\":\"json:/type\"},\"application\":\"" + uid + "\"}")
                .get("id")
                .asText();
        StoreRows rows = new StoreRows(db.config());
        long messages = rows.count("messages");
        assertRefused(
                github(sourceId, "push", UUID.randomUUID().toString(), "not json"), "event_not_json", "body", "text");
        assertRefused(
                github(sourceId, "push", UUID.randomUUID().toString(), "{\"kind\":\"x\"}"),
                "event_type_missing",
                "body",
                "no /type");
        assertRefused(
                github(sourceId, "push", UUID.randomUUID().toString(), "{\"type\":\"not a name\"}"),
                "event_type_missing",
                "body",
                "a /type that is no name");
        assertThat(rows.count("messages")).isEqualTo(messages);
    }

    @Test
    void aBadTargetDestinationIs400NamingTheFieldAndWritesNothing() {
        String verify = "{\"scheme\":\"github\",\"secret\":\"s\"}";
        Map<String, String> cases = Map.of(
                "{\"event_type\":\"a b\"}", "destination.event_type",
                "{\"event_type\":{\"from\":\"query:x\"}}", "destination.event_type.from",
                "{\"event_type\":{\"from\":\"header:\"}}", "destination.event_type.from",
                "{\"event_type\":{\"from\":\"json:type\"}}", "destination.event_type.from",
                "{\"event_type\":\"a.b\",\"application\":\"nobody\"}", "destination.application",
                "{\"application\":\"nobody\"}", "destination.event_type",
                "{\"event_type\":\"a.b\",\"colour\":1}", "destination.colour");
        long sources = new StoreRows(db.config()).count("sources");
        cases.forEach((destination, param) -> {
            var r = call(
                    "POST",
                    "/v1/sources",
                    "{\"name\":\"s\",\"verify\":" + verify + ",\"destination\":" + destination + "}");
            assertThat(r.status()).as(destination + " -> " + r.raw()).isEqualTo(400);
            assertThat(r.json().at("/error/param").asText()).as(destination).isEqualTo(param);
        });
        assertThat(new StoreRows(db.config()).count("sources")).isEqualTo(sources);

        String url = source(verify, "\"" + receiver.url("/u") + "\"").get("id").asText();
        var patched = call("PATCH", "/v1/sources/" + url, "{\"destination\":{\"event_type\":\"a.b\"}}");
        assertThat(patched.status()).as(patched.raw()).isEqualTo(200);
        assertThat(patched.json().get("destination").get("event_type").asText()).isEqualTo("a.b");
        assertThat(patched.json().get("destination").get("application").isNull())
                .isTrue();
    }
}

package dev.idem.server.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.server.ApiClientForTests;
import java.util.Map;

/**
 * The applications, endpoints, event types and filter routes walked for {@link OpenApiContractTest}: each operation
 * answers a success and its errors, every answer checked against openapi.json by the caller.
 */
final class FanoutApiWalk {
    /** {@link OpenApiContractTest#call}: calls, checks against the document, asserts the status. */
    interface Caller {
        ApiClientForTests.Reply call(
                int expected, String method, String path, String key, String body, Map<String, String> headers);
    }

    private final Caller c;
    private final String key;

    FanoutApiWalk(Caller c, String key) {
        this.c = c;
        this.key = key;
    }

    private ApiClientForTests.Reply call(int expected, String method, String path, String body) {
        return c.call(expected, method, path, key, body, Map.of());
    }

    private ApiClientForTests.Reply once(int expected, String method, String path, String body, String idempotencyKey) {
        return c.call(expected, method, path, key, body, Map.of("Idempotency-Key", idempotencyKey));
    }

    private void unauthenticated(String method, String path, String body) {
        c.call(401, method, path, null, body, Map.of());
    }

    void walk(String url) {
        // applications
        String app = "{\"uid\":\"walk_cust\",\"name\":\"Walk\",\"metadata\":{\"a\":1},\"rate_limit\":5}";
        String appId = once(201, "POST", "/v1/applications", app, "walk-app")
                .json()
                .get("id")
                .asText();
        assertThat(once(201, "POST", "/v1/applications", app, "walk-app").header("Idempotent-Replayed"))
                .isEqualTo("true");
        once(409, "POST", "/v1/applications", "{\"name\":\"x\"}", "walk-app");
        call(400, "POST", "/v1/applications", "{\"uid\":\"app_1\",\"name\":\"x\"}");
        call(400, "POST", "/v1/applications", app);
        unauthenticated("POST", "/v1/applications", app);
        call(200, "GET", "/v1/applications", null);
        call(404, "GET", "/v1/applications?starting_after=app_nosuchapp", null);
        unauthenticated("GET", "/v1/applications", null);
        call(200, "GET", "/v1/applications/walk_cust", null);
        call(404, "GET", "/v1/applications/app_nosuchapp", null);
        unauthenticated("GET", "/v1/applications/" + appId, null);
        once(200, "PATCH", "/v1/applications/walk_cust", "{\"name\":\"Walk 2\",\"rate_limit\":null}", "walk-app-p");
        once(409, "PATCH", "/v1/applications/walk_cust", "{}", "walk-app-p");
        call(400, "PATCH", "/v1/applications/walk_cust", "{\"colour\":1}");
        call(404, "PATCH", "/v1/applications/app_nosuchapp", "{}");
        unauthenticated("PATCH", "/v1/applications/" + appId, "{}");

        // endpoints
        String ep = "{\"url\":\"" + url + "\",\"application\":\"walk_cust\",\"event_types\":[\"invoice.*\"],"
                + "\"filter\":{\"data.amount\":{\"$gte\":1000}},\"headers\":{\"X-Team\":\"t\"},\"rate_limit\":10,"
                + "\"metadata\":{}}";
        String epId = once(201, "POST", "/v1/endpoints", ep, "walk-ep")
                .json()
                .get("id")
                .asText();
        once(409, "POST", "/v1/endpoints", "{}", "walk-ep");
        call(400, "POST", "/v1/endpoints", "{\"url\":\"" + url + "\",\"filter\":{\"a\":{\"$gtee\":1}}}");
        call(400, "POST", "/v1/endpoints", "{\"url\":\"" + url + "\",\"application\":\"nobody\"}");
        call(400, "POST", "/v1/endpoints", "{\"url\":\"ftp://example.com/x\"}");
        unauthenticated("POST", "/v1/endpoints", ep);
        call(200, "GET", "/v1/endpoints", null);
        call(200, "GET", "/v1/endpoints?application=walk_cust&limit=1", null);
        call(404, "GET", "/v1/endpoints?application=nobody", null);
        unauthenticated("GET", "/v1/endpoints", null);
        call(200, "GET", "/v1/endpoints/" + epId, null);
        call(404, "GET", "/v1/endpoints/ep_nosuchendpoint", null);
        unauthenticated("GET", "/v1/endpoints/" + epId, null);
        once(200, "PATCH", "/v1/endpoints/" + epId, "{\"disabled\":true,\"filter\":null}", "walk-ep-p");
        once(409, "PATCH", "/v1/endpoints/" + epId, "{}", "walk-ep-p");
        call(400, "PATCH", "/v1/endpoints/" + epId, "{\"event_types\":[]}");
        call(404, "PATCH", "/v1/endpoints/ep_nosuchendpoint", "{}");
        unauthenticated("PATCH", "/v1/endpoints/" + epId, "{}");

        call(200, "GET", "/v1/endpoints/" + epId + "/secret", null);
        call(404, "GET", "/v1/endpoints/ep_nosuchendpoint/secret", null);
        unauthenticated("GET", "/v1/endpoints/" + epId + "/secret", null);
        once(200, "POST", "/v1/endpoints/" + epId + "/secret/rotate", null, "walk-ep-rotate");
        once(409, "POST", "/v1/endpoints/" + epId + "/secret/rotate", "{}", "walk-ep-rotate");
        call(400, "POST", "/v1/endpoints/" + epId + "/secret/rotate", "{\"secret\":\"whsec_c2hvcnQ=\"}");
        call(404, "POST", "/v1/endpoints/ep_nosuchendpoint/secret/rotate", null);
        unauthenticated("POST", "/v1/endpoints/" + epId + "/secret/rotate", null);

        // event types
        String type = "{\"name\":\"invoice.paid\",\"description\":\"Paid\",\"schema\":{\"type\":\"object\","
                + "\"required\":[\"amount\"]},\"example\":{\"amount\":1}}";
        once(201, "POST", "/v1/event-types", type, "walk-type");
        once(409, "POST", "/v1/event-types", "{}", "walk-type");
        call(400, "POST", "/v1/event-types", "{\"name\":\"x\",\"schema\":{\"type\":\"strng\"}}");
        call(400, "POST", "/v1/event-types", "{\"name\":\"x\",\"schema\":{\"type\":\"object\"},\"example\":[]}");
        unauthenticated("POST", "/v1/event-types", type);
        call(200, "GET", "/v1/event-types?limit=1", null);
        call(400, "GET", "/v1/event-types?limit=0", null);
        unauthenticated("GET", "/v1/event-types", null);
        call(200, "GET", "/v1/event-types/invoice.paid", null);
        call(404, "GET", "/v1/event-types/invoice.lost", null);
        unauthenticated("GET", "/v1/event-types/invoice.paid", null);
        once(200, "PATCH", "/v1/event-types/invoice.paid", "{\"deprecated\":true}", "walk-type-p");
        once(409, "PATCH", "/v1/event-types/invoice.paid", "{}", "walk-type-p");
        call(400, "PATCH", "/v1/event-types/invoice.paid", "{\"example\":{}}");
        call(404, "PATCH", "/v1/event-types/invoice.lost", "{}");
        unauthenticated("PATCH", "/v1/event-types/invoice.paid", "{}");

        // filters
        String test = "{\"filter\":{\"data.amount\":{\"$gte\":1000}},\"payload\":{\"data\":{\"amount\":1500}}}";
        assertThat(once(200, "POST", "/v1/filters/test", test, "walk-filter")
                        .json()
                        .get("matches")
                        .asBoolean())
                .isTrue();
        once(409, "POST", "/v1/filters/test", "{}", "walk-filter");
        call(400, "POST", "/v1/filters/test", "{\"filter\":{\"$nor\":[]},\"payload\":{}}");
        unauthenticated("POST", "/v1/filters/test", test);

        // messages: the endpoint above (invoice.*, its filter cleared), enabled again, receives this one
        call(200, "PATCH", "/v1/endpoints/" + epId, "{\"disabled\":false}");
        String msg = "{\"event_type\":\"invoice.paid\",\"payload\":{\"amount\":5,\"data\":{\"amount\":1500}},"
                + "\"dedup_id\":\"walk-msg\"}";
        var sent = once(201, "POST", "/v1/messages", msg, "walk-msg");
        assertThat(sent.json().get("deliveries").asInt()).isEqualTo(1);
        String msgId = sent.json().get("id").asText();
        once(409, "POST", "/v1/messages", "{}", "walk-msg");
        assertThat(call(200, "POST", "/v1/messages", msg.replace("1500", "1600"))
                        .json()
                        .get("id")
                        .asText())
                .isEqualTo(msgId);
        call(400, "POST", "/v1/messages", "{\"event_type\":\"invoice.paid\",\"payload\":{}}");
        unauthenticated("POST", "/v1/messages", msg);
        call(200, "GET", "/v1/messages?event_type=invoice.paid&limit=5", null);
        call(200, "GET", "/v1/messages?application=walk_cust&since=2026-01-01T00:00:00Z", null);
        call(400, "GET", "/v1/messages?since=yesterday", null);
        call(404, "GET", "/v1/messages?starting_after=msg_nosuchmessage", null);
        unauthenticated("GET", "/v1/messages", null);
        call(200, "GET", "/v1/messages/" + msgId, null);
        call(404, "GET", "/v1/messages/msg_nosuchmessage", null);
        unauthenticated("GET", "/v1/messages/" + msgId, null);

        // deletions
        once(200, "DELETE", "/v1/endpoints/" + epId, null, "walk-ep-d");
        once(409, "DELETE", "/v1/endpoints/" + epId, "{}", "walk-ep-d");
        call(404, "DELETE", "/v1/endpoints/ep_nosuchendpoint", null);
        unauthenticated("DELETE", "/v1/endpoints/" + epId, null);
        once(200, "DELETE", "/v1/event-types/invoice.paid", null, "walk-type-d");
        once(409, "DELETE", "/v1/event-types/invoice.paid", "{}", "walk-type-d");
        call(404, "DELETE", "/v1/event-types/invoice.lost", null);
        unauthenticated("DELETE", "/v1/event-types/invoice.paid", null);
        once(200, "DELETE", "/v1/applications/" + appId, null, "walk-app-d");
        once(409, "DELETE", "/v1/applications/" + appId, "{}", "walk-app-d");
        call(404, "DELETE", "/v1/applications/app_nosuchapp", null);
        unauthenticated("DELETE", "/v1/applications/" + appId, null);
    }
}

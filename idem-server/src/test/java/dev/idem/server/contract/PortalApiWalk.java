package dev.idem.server.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.server.ApiClientForTests;
import java.util.Map;

/**
 * The portal's API routes walked for {@link OpenApiContractTest}: minting and revoking links, opening and describing
 * a session, the audit log; each answers a success and an error, every answer checked against openapi.json by the
 * caller.
 */
final class PortalApiWalk {
    private final FanoutApiWalk.Caller c;
    private final String key;

    PortalApiWalk(FanoutApiWalk.Caller c, String key) {
        this.c = c;
        this.key = key;
    }

    private ApiClientForTests.Reply call(int expected, String method, String path, String token, String body) {
        return c.call(expected, method, path, token, body, Map.of());
    }

    void walk(String url) {
        c.call(201, "POST", "/v1/applications", key, "{\"uid\":\"walk_portal\",\"name\":\"Portal\"}", Map.of());
        String base = "/v1/applications/walk_portal/portal-access";
        var link = call(
                201,
                "POST",
                base,
                key,
                "{\"expiry\":\"1h\",\"capabilities\":[\"view\",\"manage_endpoints\"]," + "\"session\":\"walk\"}");
        call(201, "POST", base, key, null);
        call(400, "POST", base, key, "{\"expiry\":\"30d\"}");
        call(404, "POST", "/v1/applications/app_nosuchapp/portal-access", key, "{}");
        call(401, "POST", base, null, "{}");

        String linkToken = link.json().get("token").asText();
        String session = call(201, "POST", "/v1/portal/sessions", linkToken, "{}")
                .json()
                .get("token")
                .asText();
        call(401, "POST", "/v1/portal/sessions", key, "{}");
        call(200, "GET", "/v1/portal/session", session, null);
        call(401, "GET", "/v1/portal/session", linkToken, null);
        call(403, "GET", "/v1/schedules", session, null);

        String endpoint = "{\"url\":\"" + url + "\",\"application\":\"walk_portal\",\"description\":\"by portal\"}";
        String created = call(201, "POST", "/v1/endpoints", session, endpoint)
                .json()
                .get("id")
                .asText();
        call(201, "POST", "/v1/event-types", key, "{\"name\":\"walk.tested\",\"example\":{\"ok\":true}}");
        String test = "/v1/endpoints/" + created + "/send-test";
        call(201, "POST", test, key, "{\"event_type\":\"walk.tested\"}");
        call(400, "POST", test, key, "{\"event_type\":\"walk.unknown\"}");
        call(403, "POST", test, session, "{\"event_type\":\"walk.tested\"}");
        call(404, "POST", "/v1/endpoints/ep_nosuchendpoint/send-test", key, "{\"event_type\":\"walk.tested\"}");
        var log = call(200, "GET", "/v1/audit-log?application=walk_portal", key, null);
        assertThat(log.json().get("data").get(0).get("action").asText()).isEqualTo("endpoint.create");
        call(404, "GET", "/v1/audit-log?application=app_nosuchapp", key, null);
        call(401, "GET", "/v1/audit-log", null, null);

        // the page: no key, no data
        call(200, "GET", "/portal", null, null);
        call(200, "GET", "/portal/a/" + link.json().get("id").asText(), null, null);
        call(200, "GET", "/portal/portal.js", null, null);
        call(200, "GET", "/portal/portal-messages.js", null, null);
        call(200, "GET", "/portal/portal.css", null, null);

        // the portal's branding and embedding live in the settings
        String portal = "{\"portal\":{\"display_name\":\"Acme\",\"primary_color\":\"#aa3300\","
                + "\"frame_ancestors\":[\"https://shop.example.com\"]}}";
        var settings = call(200, "PATCH", "/v1/settings", key, portal);
        assertThat(settings.json().at("/portal/display_name").asText()).isEqualTo("Acme");
        call(400, "PATCH", "/v1/settings", key, "{\"portal\":{\"primary_color\":\"red\"}}");
        call(
                200,
                "PATCH",
                "/v1/settings",
                key,
                "{\"portal\":{\"display_name\":null,\"primary_color\":null," + "\"frame_ancestors\":[]}}");

        call(200, "DELETE", base + "?session=walk", key, null);
        call(404, "DELETE", "/v1/applications/app_nosuchapp/portal-access", key, null);
        call(401, "GET", "/v1/portal/session", session, null);
        call(401, "DELETE", base, null, null);
    }
}

package dev.idem.server.contract;

import static dev.idem.server.contract.BadInputContract.assertRefused;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.server.ApiClientForTests;
import dev.idem.server.IdemServer;
import dev.idem.server.LoopbackReceiver;
import dev.idem.server.ServerConfig;
import dev.idem.server.internal.ApiKeys;
import dev.idem.store.testing.TestDatabase;
import dev.idem.wire.testing.MutableClock;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Portal links through the API, on every store alike: a link's token is stored only as its hash and only opens a
 * session; a session reaches its own application's objects (another application's are 404s, as another project's
 * are) and only what its capabilities grant (403 otherwise); revoking or expiry ends a session already open; bad input
 * is a 400 naming the field and writes nothing; what a session changes is in the audit log. Time is a clock the test
 * moves.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class PortalAccessContract {
    static final String KEY = "sk_test_portal0123456789";

    @TempDir
    static Path dir;

    TestDatabase db;
    IdemServer server;
    ApiClientForTests api;
    LoopbackReceiver receiver;
    StoreRows rows;
    final MutableClock clock = MutableClock.now();

    abstract TestDatabase database(Path dir);

    @BeforeAll
    void start() throws Exception {
        db = database(dir);
        ServerConfig config = ServerConfig.builder()
                .port(0)
                .dataDir(dir)
                .bootstrapKey(KEY)
                .allowPrivateEndpoints(true)
                .nodeId("portal-node")
                .rateLimitPerSecond(0)
                .build();
        server = IdemServer.start(
                config,
                db.open(clock),
                false,
                clock,
                new SecureRandom(),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        api = new ApiClientForTests(server.port());
        receiver = new LoopbackReceiver();
        rows = new StoreRows(db.config());
    }

    @AfterAll
    void stop() {
        if (server != null) server.close();
        if (receiver != null) receiver.close();
        if (db != null) db.close();
    }

    ApiClientForTests.Reply key(String method, String path, String body) {
        return api.call(method, path, KEY, body);
    }

    static String id(ApiClientForTests.Reply r) {
        assertThat(r.status()).as(r.raw()).isBetween(200, 201);
        return r.json().get("id").asText();
    }

    String app(String uid) {
        return id(key("POST", "/v1/applications", "{\"name\":\"" + uid + "\",\"uid\":\"" + uid + "\"}"));
    }

    String endpoint(String app) {
        String application = app == null ? "" : ",\"application\":\"" + app + "\"";
        return id(key("POST", "/v1/endpoints", "{\"url\":\"" + receiver.url("/hook") + "\"" + application + "}"));
    }

    JsonNode link(String app, String body) {
        var r = key("POST", "/v1/applications/" + app + "/portal-access", body);
        assertThat(r.status()).as(r.raw()).isEqualTo(201);
        return r.json();
    }

    /** A session opened with a new link to {@code app} given {@code body}. */
    String session(String app, String body) {
        return exchange(link(app, body).get("token").asText());
    }

    String exchange(String linkToken) {
        var r = api.call("POST", "/v1/portal/sessions", linkToken, "{}");
        assertThat(r.status()).as(r.raw()).isEqualTo(201);
        String token = r.json().get("token").asText();
        assertThat(token).startsWith("ps_");
        return token;
    }

    static void assertStatus(ApiClientForTests.Reply r, int status, String code) {
        assertThat(r.status()).as(r.raw()).isEqualTo(status);
        assertThat(r.json().get("error").get("code").asText()).as(r.raw()).isEqualTo(code);
    }

    @Test
    void aLinkHasTheTokenInItsFragmentDefaultsToSevenDaysAndIsStoredOnlyAsItsHash() {
        String app = app("link_defaults");
        JsonNode l = link(app, "{}");
        String token = l.get("token").asText();
        assertThat(token).startsWith("pt_");
        assertThat(l.get("url").asText()).isEqualTo("http://127.0.0.1:" + server.port() + "/portal#token=" + token);
        assertThat(Instant.parse(l.get("expires_at").asText()))
                .isEqualTo(clock.instant().plus(Duration.ofDays(7)));
        assertThat(l.get("capabilities").toString()).isEqualTo("[\"view\",\"manage_endpoints\",\"replay\"]");
        assertThat(rows.count("portal_access WHERE hash = '" + ApiKeys.hash(token) + "'"))
                .isEqualTo(1);
        assertThat(rows.count("portal_access WHERE hash LIKE '%" + token.substring(3) + "%'"))
                .isZero();
        // the link's own token opens a session and nothing else
        assertStatus(api.call("GET", "/v1/endpoints?application=" + app, token, null), 401, "portal_link_token");
        var opened = api.call("POST", "/v1/portal/sessions", token, "{}");
        assertThat(opened.json().get("application").get("id").asText()).isEqualTo(app);
        assertThat(Instant.parse(opened.json().get("expires_at").asText()))
                .isEqualTo(clock.instant().plus(Duration.ofHours(1)));
        // an API key cannot open a session, nor can a session open another
        assertStatus(key("POST", "/v1/portal/sessions", "{}"), 401, "portal_link_token_required");
        assertStatus(
                api.call(
                        "POST",
                        "/v1/portal/sessions",
                        opened.json().get("token").asText(),
                        "{}"),
                403,
                "portal_route_forbidden");
    }

    @Test
    void aSessionReachesOnlyItsOwnApplicationsObjects() {
        String mine = app("tenancy_mine");
        String theirs = app("tenancy_theirs");
        String myEndpoint = endpoint(mine);
        String theirEndpoint = endpoint(theirs);
        String projectEndpoint = endpoint(null);
        String s = session(mine, "{\"capabilities\":[\"view\",\"manage_endpoints\",\"view_secrets\"]}");

        var list = api.call("GET", "/v1/endpoints?application=tenancy_mine", s, null);
        assertThat(list.status()).as(list.raw()).isEqualTo(200);
        assertThat(list.json().get("data").findValuesAsText("id")).containsExactly(myEndpoint);
        assertThat(api.call("GET", "/v1/endpoints/" + myEndpoint, s, null).status())
                .isEqualTo(200);
        for (String other : List.of(theirEndpoint, projectEndpoint, "ep_nothere")) {
            assertStatus(api.call("GET", "/v1/endpoints/" + other, s, null), 404, "resource_missing");
            assertStatus(
                    api.call("PATCH", "/v1/endpoints/" + other, s, "{\"description\":\"mine now\"}"),
                    404,
                    "resource_missing");
            assertStatus(api.call("GET", "/v1/endpoints/" + other + "/secret", s, null), 404, "resource_missing");
            assertStatus(api.call("DELETE", "/v1/endpoints/" + other, s, null), 404, "resource_missing");
        }
        assertThat(key("GET", "/v1/endpoints/" + theirEndpoint, null).json().has("description"))
                .isTrue();
        assertThat(key("GET", "/v1/endpoints/" + theirEndpoint, null)
                        .json()
                        .get("description")
                        .isNull())
                .isTrue();
        assertStatus(api.call("GET", "/v1/endpoints?application=" + theirs, s, null), 404, "resource_missing");
        assertStatus(api.call("GET", "/v1/applications/" + theirs, s, null), 404, "resource_missing");
        assertStatus(api.call("GET", "/v1/applications/tenancy_theirs", s, null), 404, "resource_missing");
        assertThat(api.call("GET", "/v1/applications/" + mine, s, null).status())
                .isEqualTo(200);

        long endpoints = rows.count("endpoints");
        assertRefused(
                api.call(
                        "POST",
                        "/v1/endpoints",
                        s,
                        "{\"url\":\"" + receiver.url("/x") + "\",\"application\":\"" + theirs + "\"}"),
                "application_unknown",
                "application",
                "create in another application");
        assertRefused(
                api.call("POST", "/v1/endpoints", s, "{\"url\":\"" + receiver.url("/x") + "\"}"),
                "parameter_missing",
                "application",
                "create without an application");
        assertThat(rows.count("endpoints")).isEqualTo(endpoints);
        var created = api.call(
                "POST",
                "/v1/endpoints",
                s,
                "{\"url\":\"" + receiver.url("/x") + "\",\"application\":\"tenancy_mine\"}");
        assertThat(created.status()).as(created.raw()).isEqualTo(201);
        assertThat(created.json().get("application").asText()).isEqualTo(mine);

        // what a portal is not for: schedules, settings, keys' own routes, other links
        assertStatus(api.call("GET", "/v1/schedules", s, null), 403, "portal_route_forbidden");
        assertStatus(api.call("GET", "/v1/settings", s, null), 403, "portal_route_forbidden");
        assertStatus(api.call("GET", "/v1/audit-log", s, null), 403, "portal_route_forbidden");
        assertStatus(
                api.call("POST", "/v1/applications/" + mine + "/portal-access", s, "{}"),
                403,
                "portal_route_forbidden");
    }

    @Test
    void whatTheCapabilitiesDoNotGrantIsRefused() {
        String app = app("caps");
        String ep = endpoint(app);
        String viewer = session(app, "{\"capabilities\":[\"view\"]}");
        assertThat(api.call("GET", "/v1/endpoints/" + ep, viewer, null).status())
                .isEqualTo(200);
        assertThat(api.call("GET", "/v1/event-types", viewer, null).status()).isEqualTo(200);
        String before = key("GET", "/v1/endpoints/" + ep, null).raw();
        assertStatus(
                api.call("PATCH", "/v1/endpoints/" + ep, viewer, "{\"disabled\":true}"),
                403,
                "portal_capability_missing");
        assertStatus(
                api.call(
                        "POST",
                        "/v1/endpoints",
                        viewer,
                        "{\"url\":\"" + receiver.url("/y") + "\",\"application\":\"" + app + "\"}"),
                403,
                "portal_capability_missing");
        assertStatus(api.call("DELETE", "/v1/endpoints/" + ep, viewer, null), 403, "portal_capability_missing");
        assertStatus(
                api.call("GET", "/v1/endpoints/" + ep + "/secret", viewer, null), 403, "portal_capability_missing");
        assertStatus(
                api.call("POST", "/v1/endpoints/" + ep + "/secret/rotate", viewer, "{}"),
                403,
                "portal_capability_missing");
        assertThat(key("GET", "/v1/endpoints/" + ep, null).raw()).isEqualTo(before);

        String secrets = session(app, "{\"capabilities\":[\"view\",\"view_secrets\"]}");
        var secret = api.call("GET", "/v1/endpoints/" + ep + "/secret", secrets, null);
        assertThat(secret.json().get("secret").asText()).startsWith("whsec_");
        assertStatus(
                api.call("POST", "/v1/endpoints/" + ep + "/secret/rotate", secrets, "{}"),
                403,
                "portal_capability_missing");
        String rotator = session(app, "{\"capabilities\":[\"rotate_secrets\"]}");
        var rotated = api.call("POST", "/v1/endpoints/" + ep + "/secret/rotate", rotator, "{}");
        assertThat(rotated.status()).as(rotated.raw()).isEqualTo(200);
        assertThat(rotated.json().get("secret").asText())
                .isNotEqualTo(secret.json().get("secret").asText());
    }

    @Test
    void revokingALabelOrAllOfAnApplicationEndsSessionsAlreadyOpen() {
        String app = app("revoke");
        String ep = endpoint(app);
        String alice = session(app, "{\"session\":\"alice\"}");
        String bob = session(app, "{\"session\":\"bob\"}");
        String path = "/v1/endpoints/" + ep;
        assertThat(api.call("GET", path, alice, null).status()).isEqualTo(200);

        var revoked = key("DELETE", "/v1/applications/" + app + "/portal-access?session=alice", null);
        assertThat(revoked.json().get("revoked").asInt()).as(revoked.raw()).isEqualTo(1);
        assertStatus(api.call("GET", path, alice, null), 401, "portal_access_revoked");
        assertThat(api.call("GET", path, bob, null).status()).isEqualTo(200);

        var all = key("DELETE", "/v1/applications/revoke/portal-access", null);
        assertThat(all.json().get("revoked").asInt()).isEqualTo(1);
        assertStatus(api.call("GET", path, bob, null), 401, "portal_access_revoked");
        assertStatus(key("DELETE", "/v1/applications/nobody/portal-access", null), 404, "resource_missing");
    }

    @Test
    void aSessionEndsAfterAnHourAndALinkAtItsExpiry() {
        String app = app("expiry");
        String ep = endpoint(app);
        String path = "/v1/endpoints/" + ep;
        JsonNode l = link(app, "{\"expiry\":\"2h\"}");
        String linkToken = l.get("token").asText();
        assertThat(Instant.parse(l.get("expires_at").asText()))
                .isEqualTo(clock.instant().plus(Duration.ofHours(2)));
        String first = exchange(linkToken);
        clock.advance(Duration.ofMinutes(61));
        assertStatus(api.call("GET", path, first, null), 401, "portal_session_expired");
        String second = exchange(linkToken);
        assertThat(api.call("GET", path, second, null).status()).isEqualTo(200);
        clock.advance(Duration.ofMinutes(60));
        // the link has expired: its session with it, though the session's own hour is not over
        assertStatus(api.call("GET", path, second, null), 401, "portal_access_expired");
        assertStatus(api.call("POST", "/v1/portal/sessions", linkToken, "{}"), 401, "portal_access_expired");
    }

    static Stream<Arguments> refusedLinks() {
        return Stream.of(
                Arguments.of("{\"expiry\":\"59m\"}", "parameter_out_of_range", "expiry"),
                Arguments.of("{\"expiry\":\"8d\"}", "parameter_out_of_range", "expiry"),
                Arguments.of("{\"expiry\":\"soon\"}", "parameter_invalid_duration", "expiry"),
                Arguments.of("{\"expiry\":3600}", "parameter_invalid_type", "expiry"),
                Arguments.of("{\"capabilities\":\"view\"}", "parameter_invalid_type", "capabilities"),
                Arguments.of("{\"capabilities\":[]}", "parameter_invalid_type", "capabilities"),
                Arguments.of("{\"capabilities\":[\"view\",\"admin\"]}", "parameter_invalid", "capabilities[1]"),
                Arguments.of("{\"capabilities\":[1]}", "parameter_invalid_type", "capabilities[0]"),
                Arguments.of("{\"session\":\"" + "x".repeat(101) + "\"}", "parameter_too_long", "session"),
                Arguments.of("{\"session\":7}", "parameter_invalid_type", "session"),
                Arguments.of("{\"scope\":\"all\"}", "parameter_unknown", "scope"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusedLinks")
    void badInputIsA400NamingTheFieldAndWritesNothing(String body, String code, String param) {
        String app = app("bad_" + Math.abs(body.hashCode()));
        long before = rows.count("portal_access");
        assertRefused(key("POST", "/v1/applications/" + app + "/portal-access", body), code, param, body);
        assertThat(rows.count("portal_access")).isEqualTo(before);
    }

    @Test
    void anUnknownOrDeletedApplicationGetsNoLink() {
        long before = rows.count("portal_access");
        assertStatus(key("POST", "/v1/applications/nobody/portal-access", "{}"), 404, "resource_missing");
        String gone = app("gone");
        key("DELETE", "/v1/applications/" + gone, null);
        assertStatus(key("POST", "/v1/applications/" + gone + "/portal-access", "{}"), 400, "application_deleted");
        assertThat(rows.count("portal_access")).isEqualTo(before);
    }

    @Test
    void whatASessionChangesIsInTheAuditLogAndAKeysChangesAreNot() {
        String app = app("audited");
        String other = app("audited_other");
        String ep = endpoint(app);
        String s = session(app, "{\"session\":\"support-42\"}");
        key("PATCH", "/v1/endpoints/" + ep, "{\"description\":\"by the project\"}");
        var changed =
                api.call("PATCH", "/v1/endpoints/" + ep, s, "{\"description\":\"by the customer\",\"disabled\":true}");
        assertThat(changed.status()).as(changed.raw()).isEqualTo(200);
        String created = id(api.call(
                "POST",
                "/v1/endpoints",
                s,
                "{\"url\":\"" + receiver.url("/z") + "\",\"application\":\"" + app + "\"}"));
        api.call("PATCH", "/v1/endpoints/" + ep, s, "{\"url\":\"ftp://refused\"}");

        var log = key("GET", "/v1/audit-log?application=audited", null);
        assertThat(log.status()).as(log.raw()).isEqualTo(200);
        JsonNode data = log.json().get("data");
        assertThat(data).hasSize(2);
        JsonNode newest = data.get(0);
        assertThat(newest.get("action").asText()).isEqualTo("endpoint.create");
        assertThat(newest.get("object_id").asText()).isEqualTo(created);
        JsonNode update = data.get(1);
        assertThat(update.get("action").asText()).isEqualTo("endpoint.update");
        assertThat(update.get("object_id").asText()).isEqualTo(ep);
        assertThat(update.get("fields").toString()).isEqualTo("[\"description\",\"disabled\"]");
        assertThat(update.get("actor").get("type").asText()).isEqualTo("portal_session");
        assertThat(update.get("actor").get("session").asText()).isEqualTo("support-42");
        assertThat(Instant.parse(update.get("created_at").asText())).isEqualTo(clock.instant());
        assertThat(update.toString()).doesNotContain("by the customer");
        assertThat(key("GET", "/v1/audit-log?application=" + other, null).json().get("data"))
                .isEmpty();
        assertThat(key("GET", "/v1/audit-log", null).json().get("data").size()).isGreaterThanOrEqualTo(2);
    }

    @Test
    void thePageOfALinkMayBeEmbeddedOnlyWhereTheSettingsSayAndBadSettingsChangeNothing() {
        String app = app("embedding");
        String page = "/portal/a/" + link(app, "{}").get("id").asText();
        assertThat(api.call("GET", page, null, null).header("Content-Security-Policy"))
                .contains("frame-ancestors 'none'", "script-src 'self'", "img-src 'self';")
                .doesNotContain("unsafe");
        assertThat(api.call("GET", "/portal/a/pa_unknown", null, null).header("Content-Security-Policy"))
                .contains("frame-ancestors 'none'");
        assertThat(api.call("GET", "/portal", null, null).header("Referrer-Policy"))
                .isEqualTo("no-referrer");

        long before = rows.count("portal_settings");
        assertRefused(
                key(
                        "PATCH",
                        "/v1/settings",
                        "{\"portal\":{\"frame_ancestors\":[\"https://a.example; script-src *\"]}}"),
                "parameter_invalid",
                "portal.frame_ancestors[0]",
                "an origin with a directive in it");
        assertRefused(
                key(
                        "PATCH",
                        "/v1/settings",
                        "{\"alert_events\":[],\"portal\":{\"logo_url\":\"http://a.example/l.png\"}}"),
                "parameter_invalid",
                "portal.logo_url",
                "a logo over http");
        assertRefused(
                key("PATCH", "/v1/settings", "{\"portal\":{\"primary_color\":\"red;\"}}"),
                "parameter_invalid",
                "portal.primary_color",
                "a colour that is not #rrggbb");
        assertThat(rows.count("portal_settings")).isEqualTo(before);
        assertThat(key("GET", "/v1/settings", null).json().get("alert_events")).isNotEmpty();

        var saved = key(
                "PATCH",
                "/v1/settings",
                "{\"portal\":{\"frame_ancestors\":[\"https://shop.example\",\"https://*.acme.example:8443\"],"
                        + "\"logo_url\":\"https://cdn.example:444/logo.svg\"}}");
        assertThat(saved.status()).as(saved.raw()).isEqualTo(200);
        assertThat(api.call("GET", page, null, null).header("Content-Security-Policy"))
                .contains("frame-ancestors https://shop.example https://*.acme.example:8443")
                .contains("img-src 'self' https://cdn.example:444;");
        key("PATCH", "/v1/settings", "{\"portal\":{\"frame_ancestors\":[],\"logo_url\":null}}");
        assertThat(api.call("GET", page, null, null).header("Content-Security-Policy"))
                .contains("frame-ancestors 'none'");
    }
}

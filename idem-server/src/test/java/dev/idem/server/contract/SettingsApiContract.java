package dev.idem.server.contract;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.server.ApiClientForTests;
import dev.idem.store.testing.TestDatabase;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code GET/PATCH /v1/settings} on every store alike, on a node without {@code --allow-private-endpoints}: a PATCH
 * changes the fields it gives, bad input is a 400 naming the field and changes nothing (not even the valid fields
 * beside it), and an {@code Idempotency-Key} replays the first answer. The endpoints are public literal addresses
 * that nothing is ever sent to (no event happens here).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class SettingsApiContract {
    static final String KEY = ContractServer.TEST_KEY;
    static final String PUBLIC = "https://93.184.216.34/alerts";

    @TempDir
    static Path dir;

    TestDatabase db;
    ContractServer node;

    abstract TestDatabase database(Path dir);

    @BeforeAll
    void start() {
        db = database(dir);
        node = ContractServer.start(db.open(Clock.systemUTC()), dir, false, true, 0);
    }

    @AfterAll
    void stop() {
        if (node != null) node.close();
        if (db != null) db.close();
    }

    @BeforeEach
    void reset() {
        assertThat(patch("{\"alert_endpoint\":null,\"alert_events\":[\"delivery.dead\",\"schedule.auto_paused\"]}")
                        .status())
                .isEqualTo(200);
    }

    ApiClientForTests.Reply get() {
        return node.api.call("GET", "/v1/settings", KEY, null);
    }

    ApiClientForTests.Reply patch(String body) {
        return node.api.call("PATCH", "/v1/settings", KEY, body);
    }

    @Test
    void aPatchChangesTheFieldsItGivesAndKeepsTheOthers() {
        var first = get();
        assertThat(first.status()).isEqualTo(200);
        assertThat(first.json().get("object").asText()).isEqualTo("settings");
        assertThat(first.json().get("alert_endpoint").isNull()).isTrue();
        assertThat(first.json().get("alert_events").toString())
                .isEqualTo("[\"delivery.dead\",\"schedule.auto_paused\"]");

        var set = patch("{\"alert_endpoint\":\"" + PUBLIC + "\"}");
        assertThat(set.status()).as(set.raw()).isEqualTo(200);
        assertThat(set.json().get("alert_endpoint").asText()).isEqualTo(PUBLIC);
        assertThat(set.json().get("alert_events")).hasSize(2);

        var events = patch("{\"alert_events\":[\"schedule.auto_paused\",\"schedule.auto_paused\"]}");
        assertThat(events.json().get("alert_events").toString()).isEqualTo("[\"schedule.auto_paused\"]");
        assertThat(events.json().get("alert_endpoint").asText()).isEqualTo(PUBLIC);
        assertThat(get().raw()).isEqualTo(events.raw());

        assertThat(patch("{\"alert_events\":[]}").json().get("alert_events")).isEmpty();
        var off = patch("{\"alert_endpoint\":null}");
        assertThat(off.json().get("alert_endpoint").isNull()).isTrue();
        assertThat(off.json().get("alert_events")).isEmpty();
        assertThat(patch("{}").raw()).isEqualTo(off.raw());
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "{\"alert_endpoint\":42}|parameter_invalid_type|alert_endpoint",
                "{\"alert_endpoint\":\"\"}|parameter_invalid_empty|alert_endpoint",
                "{\"alert_endpoint\":\"ftp://93.184.216.34/x\"}|endpoint_invalid|alert_endpoint",
                "{\"alert_endpoint\":\"not a url\"}|endpoint_invalid|alert_endpoint",
                "{\"alert_endpoint\":\"http://127.0.0.1:9000/alerts\"}|endpoint_not_allowed|alert_endpoint",
                "{\"alert_endpoint\":\"http://169.254.169.254/latest\"}|endpoint_not_allowed|alert_endpoint",
                "{\"alert_endpoint\":\"http://localhost/alerts\"}|endpoint_not_allowed|alert_endpoint",
                "{\"alert_events\":\"delivery.dead\"}|parameter_invalid_type|alert_events",
                "{\"alert_events\":null}|parameter_invalid_type|alert_events",
                "{\"alert_events\":[\"delivery.dead\",7]}|parameter_invalid_type|alert_events[1]",
                "{\"alert_events\":[\"delivery.lost\"]}|parameter_invalid|alert_events[0]",
                "{\"alert_endpoint\":\"https://93.184.216.34/new\",\"alert_events\":[\"nope\"]}|parameter_invalid|alert_events[0]",
                "{\"alert_endpoint\":\"http://10.0.0.1/x\",\"alert_events\":[]}|endpoint_not_allowed|alert_endpoint",
                "{\"alert_url\":\"https://93.184.216.34/x\"}|parameter_unknown|alert_url",
                "[]|invalid_json|",
            })
    void badInputIsA400NamingTheFieldAndChangesNothing(String body, String code, String param) {
        assertThat(patch("{\"alert_endpoint\":\"" + PUBLIC + "\",\"alert_events\":[\"delivery.dead\"]}")
                        .status())
                .isEqualTo(200);
        String before = get().raw();
        var r = patch(body);
        assertThat(r.status()).as("%s -> %s", body, r.raw()).isEqualTo(400);
        JsonNode e = r.json().get("error");
        assertThat(e.get("type").asText()).isEqualTo("invalid_request_error");
        assertThat(e.get("code").asText()).as(r.raw()).isEqualTo(code);
        if (param != null) assertThat(e.get("param").asText()).as(r.raw()).isEqualTo(param);
        assertThat(e.get("message").asText()).isNotBlank();
        assertThat(get().raw()).as("a refused PATCH changed nothing: %s", body).isEqualTo(before);
    }

    @Test
    void anIdempotencyKeyReplaysTheFirstAnswerAndRefusesAnotherBody() {
        String body = "{\"alert_endpoint\":\"" + PUBLIC + "\",\"alert_events\":[\"delivery.dead\"]}";
        Map<String, String> key = Map.of("Idempotency-Key", "settings-" + System.nanoTime());
        var first = node.api.call("PATCH", "/v1/settings", KEY, body, key);
        assertThat(first.status()).isEqualTo(200);
        // changed by another call meanwhile: the retry replays the first answer, and does not apply its body again
        patch("{\"alert_events\":[]}");
        var replay = node.api.call("PATCH", "/v1/settings", KEY, body, key);
        assertThat(replay.status()).isEqualTo(200);
        assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(replay.raw()).isEqualTo(first.raw());
        assertThat(get().json().get("alert_events")).isEmpty();
        var reuse = node.api.call("PATCH", "/v1/settings", KEY, "{\"alert_events\":[]}", key);
        assertThat(reuse.status()).isEqualTo(409);
        assertThat(reuse.json().get("error").get("code").asText()).isEqualTo("idempotency_key_reuse");
    }

    @Test
    void withoutAKeyNothingIsReadOrChanged() {
        assertThat(node.api.call("GET", "/v1/settings", null, null).status()).isEqualTo(401);
        assertThat(node.api
                        .call("PATCH", "/v1/settings", "sk_test_nosuchkey0000", "{\"alert_events\":[]}")
                        .status())
                .isEqualTo(401);
        assertThat(get().json().get("alert_events")).hasSize(2);
    }
}

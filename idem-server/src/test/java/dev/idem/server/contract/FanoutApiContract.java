package dev.idem.server.contract;

import static dev.idem.server.contract.BadInputContract.assertRefused;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.server.ApiClientForTests;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Applications, endpoints and event types through the API, on every store alike: bad input is a 400 naming the field
 * (inside a filter or schema, the path in it) and writes nothing; deleting an application disables its endpoints and
 * keeps everything readable; a uid works wherever an id does; nothing is visible from another mode.
 */
abstract class FanoutApiContract extends OneNodeContract {
    private static final List<String> TABLES =
            List.of("applications", "endpoints", "event_types", "idempotency_records");
    StoreRows rows;

    @BeforeAll
    void countRows() {
        rows = new StoreRows(db.config());
    }

    private List<Long> counts() {
        return TABLES.stream().map(rows::count).toList();
    }

    private String id(ApiClientForTests.Reply r) {
        assertThat(r.status()).as(r.raw()).isBetween(200, 201);
        return r.json().get("id").asText();
    }

    private String url() {
        return receiver.url("/hook");
    }

    static Stream<Arguments> refusedCreates() {
        String u = "\"url\":\"URL\"";
        return Stream.of(
                Arguments.of("/v1/applications", "{\"name\":\"x\",\"uid\":\"app_1\"}", "parameter_invalid", "uid"),
                Arguments.of("/v1/applications", "{\"name\":\"x\",\"uid\":\"a b\"}", "parameter_invalid", "uid"),
                Arguments.of("/v1/applications", "{\"uid\":\"c1\"}", "parameter_missing", "name"),
                Arguments.of(
                        "/v1/applications",
                        "{\"name\":\"x\",\"rate_limit\":0}",
                        "parameter_out_of_range",
                        "rate_limit"),
                Arguments.of(
                        "/v1/applications", "{\"name\":\"x\",\"metadata\":[1]}", "parameter_invalid_type", "metadata"),
                Arguments.of("/v1/applications", "{\"name\":\"x\",\"colour\":1}", "parameter_unknown", "colour"),
                Arguments.of("/v1/endpoints", "{\"url\":\"ftp://example.com/x\"}", "endpoint_invalid", "url"),
                Arguments.of("/v1/endpoints", "{}", "parameter_missing", "url"),
                Arguments.of(
                        "/v1/endpoints",
                        "{" + u + ",\"application\":\"nobody\"}",
                        "application_unknown",
                        "application"),
                Arguments.of(
                        "/v1/endpoints",
                        "{" + u + ",\"event_types\":[\"invoice.paid\",\"invoice*\"]}",
                        "event_type_pattern_invalid",
                        "event_types[1]"),
                Arguments.of(
                        "/v1/endpoints", "{" + u + ",\"event_types\":[]}", "event_type_pattern_invalid", "event_types"),
                Arguments.of(
                        "/v1/endpoints", "{" + u + ",\"event_types\":\"a\"}", "parameter_invalid_type", "event_types"),
                Arguments.of(
                        "/v1/endpoints",
                        "{" + u + ",\"filter\":{\"data\":{\"amount\":{\"$gtee\":1}}}}",
                        "filter_invalid",
                        "filter.data.amount.$gtee"),
                Arguments.of("/v1/endpoints", "{" + u + ",\"filter\":[1]}", "filter_invalid", "filter"),
                Arguments.of(
                        "/v1/endpoints",
                        "{" + u + ",\"headers\":{\"webhook-id\":\"x\"}}",
                        "header_reserved",
                        "headers.webhook-id"),
                Arguments.of("/v1/endpoints", "{" + u + ",\"disabled\":\"yes\"}", "parameter_invalid_type", "disabled"),
                Arguments.of("/v1/endpoints", "{" + u + ",\"rate_limit\":1.5}", "parameter_invalid_type", "rate_limit"),
                Arguments.of("/v1/event-types", "{\"name\":\"a/b\"}", "parameter_invalid", "name"),
                Arguments.of(
                        "/v1/event-types",
                        "{\"name\":\"x\",\"schema\":{\"properties\":{\"a\":{\"type\":\"strng\"}}}}",
                        "schema_invalid",
                        "schema.properties.a.type"),
                Arguments.of(
                        "/v1/event-types",
                        "{\"name\":\"x\",\"schema\":{\"$ref\":\"http://127.0.0.1:9/s.json\"}}",
                        "schema_invalid",
                        "schema.$ref"),
                Arguments.of(
                        "/v1/event-types",
                        "{\"name\":\"x\",\"schema\":{\"type\":\"object\",\"properties\":{\"items\":{\"type\":\"array\","
                                + "\"items\":{\"type\":\"string\"}}}},\"example\":{\"items\":[\"a\",2]}}",
                        "example_invalid",
                        "example.items[1]"),
                Arguments.of(
                        "/v1/filters/test",
                        "{\"filter\":{\"a\":{\"$or\":[]}},\"payload\":{}}",
                        "filter_invalid",
                        "filter.a.$or"),
                Arguments.of("/v1/filters/test", "{\"payload\":{}}", "parameter_missing", "filter"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("refusedCreates")
    void badInputIsA400NamingTheFieldAndWritesNothing(String path, String body, String code, String param) {
        var before = counts();
        assertRefused(call("POST", path, body.replace("URL", url())), code, param, body);
        assertThat(counts()).as("a refused %s wrote nothing", path).isEqualTo(before);
    }

    @Test
    void aTakenUidOrNameIsA400AndWritesNothing() {
        id(call("POST", "/v1/applications", "{\"name\":\"A\",\"uid\":\"taken\"}"));
        call("POST", "/v1/event-types", "{\"name\":\"taken.type\"}");
        var before = counts();
        assertRefused(
                call("POST", "/v1/applications", "{\"name\":\"B\",\"uid\":\"taken\"}"),
                "resource_already_exists",
                "uid",
                "same uid");
        assertRefused(
                call("POST", "/v1/event-types", "{\"name\":\"taken.type\"}"),
                "resource_already_exists",
                "name",
                "name");
        assertThat(counts()).isEqualTo(before);
    }

    @Test
    void aRefusedPatchChangesNothing() {
        String app = id(call("POST", "/v1/applications", "{\"name\":\"A\",\"uid\":\"patch_a\"}"));
        String other = id(call("POST", "/v1/applications", "{\"name\":\"B\",\"uid\":\"patch_b\"}"));
        String ep = id(call("POST", "/v1/endpoints", "{\"url\":\"" + url() + "\",\"application\":\"patch_a\"}"));
        call(
                "POST",
                "/v1/event-types",
                "{\"name\":\"patch.type\",\"schema\":{\"type\":\"object\"},\"example\":{\"n\":1}}");
        record Case(String path, String body, String code, String param) {}
        for (Case c : List.of(
                new Case("/v1/applications/" + app, "{\"name\":null}", "parameter_missing", "name"),
                new Case("/v1/applications/" + app, "{\"uid\":\"patch_b\"}", "resource_already_exists", "uid"),
                new Case(
                        "/v1/endpoints/" + ep,
                        "{\"application\":\"" + other + "\"}",
                        "parameter_invalid",
                        "application"),
                new Case("/v1/endpoints/" + ep, "{\"filter\":{\"a\":{\"$in\":3}}}", "filter_invalid", "filter.a.$in"),
                new Case("/v1/endpoints/" + ep, "{\"url\":\"ftp://x\"}", "endpoint_invalid", "url"),
                new Case(
                        "/v1/event-types/patch.type",
                        "{\"schema\":{\"type\":\"object\",\"required\":[\"x\"]}}",
                        "example_invalid",
                        "example"))) {
            String before = call("GET", c.path(), null).raw();
            assertRefused(call("PATCH", c.path(), c.body()), c.code(), c.param(), c.body());
            assertThat(call("GET", c.path(), null).raw()).as(c.body()).isEqualTo(before);
        }
    }

    @Test
    void deletingAnApplicationDisablesItsEndpointsAndKeepsThemReadable() {
        String app = id(call("POST", "/v1/applications", "{\"name\":\"Gone\",\"uid\":\"gone_1\"}"));
        String on = id(call("POST", "/v1/endpoints", "{\"url\":\"" + url() + "\",\"application\":\"gone_1\"}"));
        String off = id(call(
                "POST", "/v1/endpoints", "{\"url\":\"" + url() + "\",\"application\":\"gone_1\",\"disabled\":true}"));

        JsonNode deleted = call("DELETE", "/v1/applications/gone_1", null).json();

        assertThat(deleted.get("status").asText()).isEqualTo("deleted");
        assertThat(call("GET", "/v1/applications/" + app, null)
                        .json()
                        .get("status")
                        .asText())
                .isEqualTo("deleted");
        JsonNode first = call("GET", "/v1/endpoints/" + on, null).json();
        assertThat(first.get("status").asText()).isEqualTo("disabled");
        assertThat(first.get("disabled_reason").asText()).isEqualTo("application_deleted");
        assertThat(call("GET", "/v1/endpoints/" + off, null)
                        .json()
                        .get("disabled_reason")
                        .asText())
                .isEqualTo("manual");
        assertThat(call("GET", "/v1/endpoints?application=" + app, null).json().get("data"))
                .hasSize(2);
        assertRefused(
                call("PATCH", "/v1/endpoints/" + on, "{\"disabled\":false}"), "application_deleted", "disabled", "on");
        assertRefused(
                call("POST", "/v1/endpoints", "{\"url\":\"" + url() + "\",\"application\":\"" + app + "\"}"),
                "application_deleted",
                "application",
                "new endpoint");
        assertRefused(call("PATCH", "/v1/applications/" + app, "{\"name\":\"x\"}"), "application_deleted", "id", "x");

        // the uid is free again, and now names the new application
        String again = id(call("POST", "/v1/applications", "{\"name\":\"Back\",\"uid\":\"gone_1\"}"));
        assertThat(call("GET", "/v1/applications/gone_1", null).json().get("id").asText())
                .isEqualTo(again);
        assertThat(call("DELETE", "/v1/applications/" + app, null).status()).isEqualTo(200);
    }

    @Test
    void aUidWorksWhereverAnIdDoes() {
        String app = id(call("POST", "/v1/applications", "{\"name\":\"C\",\"uid\":\"cust_42\"}"));
        JsonNode ep = call("POST", "/v1/endpoints", "{\"url\":\"" + url() + "\",\"application\":\"cust_42\"}")
                .json();
        assertThat(ep.get("application").asText()).isEqualTo(app);
        assertThat(call("GET", "/v1/endpoints?application=cust_42", null)
                        .json()
                        .at("/data/0/id")
                        .asText())
                .isEqualTo(ep.get("id").asText());
        assertThat(call("PATCH", "/v1/applications/cust_42", "{\"name\":\"C2\"}")
                        .json()
                        .get("name")
                        .asText())
                .isEqualTo("C2");
        assertThat(call("PATCH", "/v1/endpoints/" + ep.get("id").asText(), "{\"application\":\"cust_42\"}")
                        .status())
                .isEqualTo(200);
    }

    @Test
    void nothingIsVisibleFromTheOtherMode() {
        String app = id(call("POST", "/v1/applications", "{\"name\":\"T\",\"uid\":\"mode_cust\"}"));
        String ep = id(call("POST", "/v1/endpoints", "{\"url\":\"" + url() + "\",\"application\":\"mode_cust\"}"));
        call("POST", "/v1/event-types", "{\"name\":\"mode.type\"}");
        String live = node.liveKey;

        for (String path : List.of(
                "/v1/applications/" + app,
                "/v1/applications/mode_cust",
                "/v1/endpoints/" + ep,
                "/v1/event-types/mode.type")) {
            assertThat(node.api.call("GET", path, live, null).status()).as(path).isEqualTo(404);
            assertThat(node.api.call("PATCH", path, live, "{}").status())
                    .as(path)
                    .isEqualTo(404);
            assertThat(node.api.call("DELETE", path, live, null).status())
                    .as(path)
                    .isEqualTo(404);
        }
        for (String list : List.of("/v1/applications", "/v1/endpoints", "/v1/event-types"))
            assertThat(node.api.call("GET", list, live, null).json().get("data"))
                    .as(list)
                    .isEmpty();
        assertThat(node.api
                        .call("GET", "/v1/endpoints?application=" + app, live, null)
                        .status())
                .isEqualTo(404);
        assertRefused(
                node.api.call(
                        "POST", "/v1/endpoints", live, "{\"url\":\"" + url() + "\",\"application\":\"mode_cust\"}"),
                "application_unknown",
                "application",
                "another mode's application");
        assertThat(node.api
                        .call("POST", "/v1/applications", live, "{\"name\":\"L\",\"uid\":\"mode_cust\"}")
                        .status())
                .isEqualTo(201);
        assertThat(node.api
                        .call("POST", "/v1/event-types", live, "{\"name\":\"mode.type\"}")
                        .status())
                .isEqualTo(201);
        assertThat(call("GET", "/v1/applications/mode_cust", null)
                        .json()
                        .get("id")
                        .asText())
                .isEqualTo(app);
    }

    @Test
    void aFilterIsTriedWithoutAnEndpoint() {
        String filter = "{\"$or\":[{\"type\":\"invoice.paid\"},{\"data.amount\":{\"$gte\":1000}}]}";
        var before = counts();
        assertThat(call(
                                "POST",
                                "/v1/filters/test",
                                "{\"filter\":" + filter + ",\"payload\":{\"data\":{\"amount\":1500}}}")
                        .json()
                        .get("matches")
                        .asBoolean())
                .isTrue();
        assertThat(call(
                                "POST",
                                "/v1/filters/test",
                                "{\"filter\":" + filter + ",\"payload\":{\"data\":{\"amount\":15}}}")
                        .json()
                        .get("matches")
                        .asBoolean())
                .isFalse();
        assertThat(counts()).isEqualTo(before);
    }

    @Test
    void anEndpointHasItsOwnSecretRevealedByOneRouteAndRotatedWithAnOverlap() {
        String given = "whsec_" + java.util.Base64.getEncoder().encodeToString(new byte[32]);
        var created = call("POST", "/v1/endpoints", "{\"url\":\"" + url() + "\",\"secret\":\"" + given + "\"}");
        String id = id(created);
        assertThat(created.raw()).doesNotContain(given);
        assertThat(call("GET", "/v1/endpoints/" + id, null).raw()).doesNotContain("whsec_");
        JsonNode secret = call("GET", "/v1/endpoints/" + id + "/secret", null).json();
        assertThat(secret.get("secret").asText()).isEqualTo(given);
        assertThat(secret.get("previous_expires_at").isNull()).isTrue();

        JsonNode rotated =
                call("POST", "/v1/endpoints/" + id + "/secret/rotate", null).json();
        assertThat(rotated.get("secret").asText()).startsWith("whsec_").isNotEqualTo(given);
        assertThat(rotated.get("previous_expires_at").isNull()).isFalse();
        assertThat(call("GET", "/v1/endpoints/" + id + "/secret", null)
                        .json()
                        .get("secret")
                        .asText())
                .isEqualTo(rotated.get("secret").asText());

        String generated = id(call("POST", "/v1/endpoints", "{\"url\":\"" + url() + "\"}"));
        String other = call("GET", "/v1/endpoints/" + generated + "/secret", null)
                .json()
                .get("secret")
                .asText();
        assertThat(other).startsWith("whsec_").isNotEqualTo(given);
        assertThat(node.api
                        .call("GET", "/v1/endpoints/" + id + "/secret", node.liveKey, null)
                        .status())
                .isEqualTo(404);
    }

    @Test
    void aBadSecretIsA400AndWritesNothing() {
        var before = counts();
        for (String bad : List.of("nope", "whsec_!!", "whsec_c2hvcnQ=", "whsec_" + "A".repeat(100)))
            assertRefused(
                    call("POST", "/v1/endpoints", "{\"url\":\"" + url() + "\",\"secret\":\"" + bad + "\"}"),
                    "parameter_invalid",
                    "secret",
                    bad);
        assertThat(counts()).isEqualTo(before);
        String id = id(call("POST", "/v1/endpoints", "{\"url\":\"" + url() + "\"}"));
        String secret = call("GET", "/v1/endpoints/" + id + "/secret", null).raw();
        assertRefused(
                call("POST", "/v1/endpoints/" + id + "/secret/rotate", "{\"secret\":\"whsec_c2hvcnQ=\"}"),
                "parameter_invalid",
                "secret",
                "rotate");
        assertRefused(
                call("PATCH", "/v1/endpoints/" + id, "{\"secret\":\"x\"}"), "parameter_invalid", "secret", "patch");
        assertThat(call("GET", "/v1/endpoints/" + id + "/secret", null).raw()).isEqualTo(secret);
    }
}

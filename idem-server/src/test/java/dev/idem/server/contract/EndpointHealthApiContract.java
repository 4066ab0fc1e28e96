package dev.idem.server.contract;

import static dev.idem.server.contract.BadInputContract.assertRefused;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Endpoint health through the API on every store alike, with real attempts to a loopback receiver: the success rate
 * and the last failure are in the endpoint's view; {@code disable_after} is a project setting, refused out of range
 * without a change. (Disabling after {@code disable_after} is checked with a moving clock in the store's
 * EndpointHealthContract.)
 */
abstract class EndpointHealthApiContract extends OneNodeContract {
    private String[] project() {
        return node.addProject("health-" + UUID.randomUUID());
    }

    @Test
    void anEndpointsViewGivesItsSuccessRateAndLastFailure() {
        String key = project()[0];
        String ok = "/h/" + UUID.randomUUID();
        String endpointId = node.api
                .call("POST", "/v1/endpoints", key, "{\"url\":\"" + receiver.url(ok) + "\"}")
                .json()
                .get("id")
                .asText();
        JsonNode fresh = node.api
                .call("GET", "/v1/endpoints/" + endpointId, key, null)
                .json()
                .get("health");
        assertThat(fresh.get("success_rate").isNull()).isTrue();
        assertThat(fresh.get("attempts").asInt()).isZero();

        var sent = node.api.call("POST", "/v1/messages", key, "{\"event_type\":\"a.b\",\"payload\":{}}");
        assertThat(sent.status()).as(sent.raw()).isEqualTo(201);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> node.api
                                .call("GET", "/v1/endpoints/" + endpointId, key, null)
                                .json()
                                .get("health")
                                .get("attempts")
                                .asInt()
                        == 1);
        JsonNode health = node.api
                .call("GET", "/v1/endpoints/" + endpointId, key, null)
                .json()
                .get("health");
        assertThat(health.get("success_rate").asDouble()).isEqualTo(1.0);
        assertThat(health.get("last_success_at").isNull()).isFalse();
        assertThat(health.get("failing_since").isNull()).isTrue();
        JsonNode listed = node.api
                .call("GET", "/v1/endpoints", key, null)
                .json()
                .get("data")
                .get(0);
        assertThat(listed.get("health").get("attempts").asInt()).isEqualTo(1);
    }

    @Test
    void disableAfterIsAProjectSettingOfOneHourToNinetyDays() {
        String key = project()[0];
        JsonNode before = node.api.call("GET", "/v1/settings", key, null).json();
        assertThat(before.get("disable_after").asText()).isEqualTo("5d");
        assertThat(before.get("alert_events").toString()).contains("endpoint.disabled");
        assertRefused(
                node.api.call("PATCH", "/v1/settings", key, "{\"disable_after\":\"59m\"}"),
                "parameter_out_of_range",
                "disable_after",
                "under an hour");
        assertRefused(
                node.api.call("PATCH", "/v1/settings", key, "{\"disable_after\":\"soon\"}"),
                "parameter_invalid_duration",
                "disable_after",
                "not a duration");
        assertThat(node.api
                        .call("GET", "/v1/settings", key, null)
                        .json()
                        .get("disable_after")
                        .asText())
                .isEqualTo("5d");
        var changed = node.api.call("PATCH", "/v1/settings", key, "{\"disable_after\":\"12h\"}");
        assertThat(changed.status()).as(changed.raw()).isEqualTo(200);
        assertThat(changed.json().get("disable_after").asText()).isEqualTo("12h");
        assertThat(node.api
                        .call("GET", "/v1/settings", key, null)
                        .json()
                        .get("disable_after")
                        .asText())
                .isEqualTo("12h");
    }

    @Test
    void deliveriesAreListedByEndpointAndByApplication() {
        String key = project()[0];
        node.api.call("POST", "/v1/applications", key, "{\"name\":\"A\",\"uid\":\"cust_a\"}");
        String[] eps = new String[3];
        for (int i = 0; i < 3; i++)
            eps[i] = node.api
                    .call(
                            "POST",
                            "/v1/endpoints",
                            key,
                            "{\"url\":\"" + receiver.url("/l/" + UUID.randomUUID()) + "\""
                                    + (i < 2 ? ",\"application\":\"cust_a\"" : "") + "}")
                    .json()
                    .get("id")
                    .asText();
        for (int m = 0; m < 2; m++)
            node.api.call("POST", "/v1/messages", key, "{\"event_type\":\"a.b\",\"payload\":{}}");
        JsonNode one = node.api
                .call("GET", "/v1/deliveries?endpoint_id=" + eps[1], key, null)
                .json();
        assertThat(one.get("data")).hasSize(2);
        one.get("data").forEach(d -> assertThat(d.get("endpoint_id").asText()).isEqualTo(eps[1]));
        JsonNode app = node.api
                .call("GET", "/v1/deliveries?application=cust_a", key, null)
                .json();
        assertThat(app.get("data")).hasSize(4);
        app.get("data").forEach(d -> assertThat(d.get("endpoint_id").asText()).isIn(eps[0], eps[1]));
        JsonNode paged = node.api
                .call("GET", "/v1/deliveries?application=cust_a&limit=3", key, null)
                .json();
        assertThat(paged.get("data")).hasSize(3);
        assertThat(node.api
                        .call("GET", "/v1/deliveries?endpoint_id=" + eps[2], key, null)
                        .json()
                        .get("data"))
                .hasSize(2);
        assertRefused(
                node.api.call("GET", "/v1/deliveries?endpoint_id=" + eps[0] + "&schedule_id=sch_x", key, null),
                "parameter_conflict",
                "endpoint_id",
                "endpoint_id with schedule_id");
        // another project sees none of them
        String other = project()[0];
        assertThat(node.api
                        .call("GET", "/v1/deliveries?endpoint_id=" + eps[0], other, null)
                        .json()
                        .get("data"))
                .isEmpty();
    }
}

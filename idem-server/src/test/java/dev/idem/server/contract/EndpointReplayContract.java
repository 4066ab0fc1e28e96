package dev.idem.server.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.server.ApiClientForTests;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * docs/sending-webhooks.md, "Replaying an endpoint's deliveries", on a running node with a loopback receiver: a
 * delivery replayed (by id or in bulk) while its endpoint is disabled waits unattempted and goes out once the endpoint
 * is enabled; a deleted endpoint's is refused by id (400 naming it) and skipped in bulk.
 */
abstract class EndpointReplayContract extends OneNodeContract {
    /** The test's own project's key: a bulk replay without a filter sees only its deliveries. */
    String key;

    @Override
    ApiClientForTests.Reply call(String method, String path, String body) {
        return node.api.call(method, path, key, body);
    }

    private String create(String path, String body) {
        var r = call("POST", path, body);
        assertThat(r.status()).as(r.raw()).isEqualTo(201);
        return r.json().get("id").asText();
    }

    /** The delivery of message {@code messageId} to {@code endpointId}. */
    private String deliveryOf(String messageId, String endpointId) {
        for (JsonNode d : call("GET", "/v1/messages/" + messageId, null).json().get("endpoint_deliveries"))
            if (d.get("endpoint_id").asText().equals(endpointId))
                return d.get("id").asText();
        throw new AssertionError("no delivery of " + messageId + " to " + endpointId);
    }

    private JsonNode delivery(String id) {
        return call("GET", "/v1/deliveries/" + id, null).json();
    }

    private void awaitSucceededAfter(String deliveryId, int attempts) {
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    JsonNode d = delivery(deliveryId);
                    return d.get("status").asText().equals("succeeded")
                            && d.get("attempt_count").asInt() == attempts;
                });
    }

    private long requestsTo(String path) {
        return receiver.requests.stream().filter(r -> r.path().equals(path)).count();
    }

    private void setDisabled(String endpointId, boolean disabled) {
        var r = call("PATCH", "/v1/endpoints/" + endpointId, "{\"disabled\":" + disabled + "}");
        assertThat(r.status()).as(r.raw()).isEqualTo(200);
    }

    /**
     * Both endpoints of one application get one message; the delivery to the disabled one is replayed (by id, then in
     * bulk after it is dead again), then the other one's: the other one's replay is sent while the held one is still
     * unattempted (a claim takes due deliveries earliest first, and the held one was due first).
     */
    @Test
    void aReplayedDeliveryOfADisabledEndpointWaitsUntilTheEndpointIsEnabled() {
        key = node.addProject("replay-" + UUID.randomUUID())[0];
        String app = create("/v1/applications", "{\"name\":\"shop\"}");
        String offPath = "/off-" + UUID.randomUUID();
        String onPath = "/on-" + UUID.randomUUID();
        String off =
                create("/v1/endpoints", "{\"url\":\"" + receiver.url(offPath) + "\",\"application\":\"" + app + "\"}");
        String on =
                create("/v1/endpoints", "{\"url\":\"" + receiver.url(onPath) + "\",\"application\":\"" + app + "\"}");
        String message = create(
                "/v1/messages", "{\"event_type\":\"order.paid\",\"application\":\"" + app + "\",\"payload\":{}}");
        String toOff = deliveryOf(message, off);
        String toOn = deliveryOf(message, on);
        awaitSucceededAfter(toOff, 1);
        awaitSucceededAfter(toOn, 1);

        setDisabled(off, true);
        var replayed = call("POST", "/v1/deliveries/" + toOff + "/replay", null);
        assertThat(replayed.status()).as(replayed.raw()).isEqualTo(200);
        assertThat(replayed.json().get("status").asText()).isEqualTo("retrying");
        assertThat(call("POST", "/v1/deliveries/" + toOn + "/replay", null).status())
                .isEqualTo(200);
        awaitSucceededAfter(toOn, 2);
        assertThat(delivery(toOff).get("attempt_count").asInt())
                .as("held while its endpoint is disabled: never claimed")
                .isEqualTo(1);
        assertThat(delivery(toOff).get("status").asText()).isEqualTo("retrying");
        assertThat(requestsTo(offPath)).isEqualTo(1);

        setDisabled(off, false);
        awaitSucceededAfter(toOff, 2);
        assertThat(requestsTo(offPath)).isEqualTo(2);

        // in bulk: both dead again, the endpoint disabled again
        setDisabled(off, true);
        StoreRows rows = new StoreRows(db.config());
        Instant deadAt = Instant.now().minus(Duration.ofMinutes(5));
        rows.markDead(toOff, deadAt);
        rows.markDead(toOn, deadAt);
        var bulk = call("POST", "/v1/deliveries/replay", "{\"status\":\"dead\",\"application\":\"" + app + "\"}");
        assertThat(bulk.status()).as(bulk.raw()).isEqualTo(200);
        assertThat(bulk.json().get("replayed").asInt()).as(bulk.raw()).isEqualTo(2);
        assertThat(bulk.json().get("held_endpoint_disabled").asInt())
                .as(bulk.raw())
                .isEqualTo(1);
        assertThat(bulk.json().get("skipped_endpoint_deleted").asInt()).isZero();
        awaitSucceededAfter(toOn, 3);
        assertThat(delivery(toOff).get("attempt_count").asInt()).isEqualTo(2);
        setDisabled(off, false);
        awaitSucceededAfter(toOff, 3);
    }

    @Test
    void aDeletedEndpointsDeliveryIsNotReplayedByIdNorInBulk() {
        key = node.addProject("replay-" + UUID.randomUUID())[0];
        String app = create("/v1/applications", "{\"name\":\"shop\"}");
        String gonePath = "/gone-" + UUID.randomUUID();
        String gone =
                create("/v1/endpoints", "{\"url\":\"" + receiver.url(gonePath) + "\",\"application\":\"" + app + "\"}");
        String message = create(
                "/v1/messages", "{\"event_type\":\"order.paid\",\"application\":\"" + app + "\",\"payload\":{}}");
        String toGone = deliveryOf(message, gone);
        awaitSucceededAfter(toGone, 1);
        assertThat(call("DELETE", "/v1/endpoints/" + gone, null).status()).isEqualTo(200);

        var single = call("POST", "/v1/deliveries/" + toGone + "/replay", null);
        assertThat(single.status()).as(single.raw()).isEqualTo(400);
        assertThat(single.json().at("/error/code").asText()).isEqualTo("endpoint_deleted");
        assertThat(single.json().at("/error/param").asText()).isEqualTo("id");
        assertThat(single.json().at("/error/message").asText()).contains(toGone, gone);

        new StoreRows(db.config()).markDead(toGone, Instant.now().minus(Duration.ofMinutes(5)));
        var byEndpoint =
                call("POST", "/v1/deliveries/replay", "{\"status\":\"dead\",\"endpoint_id\":\"" + gone + "\"}");
        assertThat(byEndpoint.status()).as(byEndpoint.raw()).isEqualTo(400);
        assertThat(byEndpoint.json().at("/error/code").asText()).isEqualTo("endpoint_deleted");
        assertThat(byEndpoint.json().at("/error/param").asText()).isEqualTo("endpoint_id");
        assertThat(byEndpoint.json().at("/error/message").asText()).contains(gone);
        var byApp = call("POST", "/v1/deliveries/replay", "{\"status\":\"dead\",\"application\":\"" + app + "\"}");
        assertThat(byApp.status()).as(byApp.raw()).isEqualTo(200);
        assertThat(byApp.json().get("replayed").asInt()).as(byApp.raw()).isZero();
        assertThat(byApp.json().get("skipped_endpoint_deleted").asInt()).isEqualTo(1);
        assertThat(delivery(toGone).get("status").asText()).isEqualTo("dead");
        assertThat(delivery(toGone).get("attempt_count").asInt()).isEqualTo(1);
        assertThat(requestsTo(gonePath)).isEqualTo(1);
    }
}

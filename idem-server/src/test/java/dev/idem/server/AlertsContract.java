package dev.idem.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.core.store.Store;
import dev.idem.wire.SigningSecret;
import dev.idem.wire.StandardWebhooksVerifier;
import dev.idem.wire.testing.MutableClock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Alerts end to end (docs/alerts.md): a node, a receiver that fails on purpose and an alert receiver that records what
 * reaches it. Each alert arrives once, signed with the project's signing secret, with its event in
 * {@code Idem-Event-Type} and the ids in its body; it is a delivery like any other (listed, fetched by id) but not a
 * schedule the user sees. A dead alert, an event not chosen and a project without an alert endpoint raise nothing:
 * checked on the tenant's whole delivery list once the triggering outcome is committed (an alert is written in that
 * very transaction, so nothing can turn up later).
 */
abstract class AlertsContract {
    @TempDir
    Path dir;

    final MutableClock clock = MutableClock.at(Instant.parse("2026-06-01T10:00:00Z"));
    Store store;
    TestNode node;
    LoopbackReceiver failing;
    LoopbackReceiver alerts;

    abstract Store openStore(Path dir, Clock clock);

    @BeforeEach
    void start() throws Exception {
        store = openStore(dir, clock);
        failing = new LoopbackReceiver();
        failing.status.set(500);
        failing.answer.set("upstream down");
        alerts = new LoopbackReceiver();
        node = new TestNode(store, dir, clock, 0);
    }

    @AfterEach
    void stop() {
        if (node != null) node.close();
        if (failing != null) failing.close();
        if (alerts != null) alerts.close();
        if (store != null) store.close();
    }

    ApiClientForTests.Reply ok(String method, String path, String body) {
        ApiClientForTests.Reply r = node.call(method, path, body);
        assertThat(r.status()).as("%s %s -> %s", method, path, r.raw()).isBetween(200, 201);
        return r;
    }

    void alertSettings(String endpoint, String events) {
        ok(
                "PATCH",
                "/v1/settings",
                "{\"alert_endpoint\":" + (endpoint == null ? "null" : "\"" + endpoint + "\"") + ",\"alert_events\":"
                        + events + "}");
    }

    /** A one-shot due now to the failing receiver. */
    String schedule(String path, int maxAttempts, int autoPauseAfter) {
        return ok(
                        "POST",
                        "/v1/schedules",
                        "{\"endpoint\":\"" + failing.url(path) + "\",\"event_type\":\"invoice.reminder\","
                                + "\"retry\":{\"max_attempts\":" + maxAttempts
                                + ",\"initial_backoff\":\"1h\"},\"auto_pause_after\":" + autoPauseAfter + "}")
                .json()
                .get("id")
                .asText();
    }

    JsonNode onlyDeliveryOf(String scheduleId) {
        JsonNode data = ok("GET", "/v1/deliveries?schedule_id=" + scheduleId, null)
                .json()
                .get("data");
        assertThat(data).hasSize(1);
        return data.get(0);
    }

    void awaitDeliveryStatus(String deliveryId, String status) {
        await().atMost(Duration.ofSeconds(30))
                .until(() -> status.equals(ok("GET", "/v1/deliveries/" + deliveryId, null)
                        .json()
                        .get("status")
                        .asText()));
    }

    /** Every delivery id of the tenant (alerts included). */
    Set<String> allDeliveries() {
        JsonNode data = ok("GET", "/v1/deliveries?limit=100", null).json().get("data");
        List<String> ids = new ArrayList<>();
        data.forEach(d -> ids.add(d.get("id").asText()));
        return Set.copyOf(ids);
    }

    Set<String> listedSchedules() {
        List<String> ids = new ArrayList<>();
        ok("GET", "/v1/schedules?limit=100", null)
                .json()
                .get("data")
                .forEach(s -> ids.add(s.get("id").asText()));
        return Set.copyOf(ids);
    }

    /** The alert of {@code event} once it arrived, checked for what every alert carries. */
    LoopbackReceiver.Received awaitAlert(String event) throws Exception {
        await().atMost(Duration.ofSeconds(30))
                .until(() -> alerts.requests.stream().anyMatch(r -> event.equals(r.header("Idem-Event-Type"))));
        List<LoopbackReceiver.Received> of = alerts.requests.stream()
                .filter(r -> event.equals(r.header("Idem-Event-Type")))
                .toList();
        assertThat(of).as("one alert per event").hasSize(1);
        LoopbackReceiver.Received r = of.get(0);
        assertThat(r.path()).isEqualTo("/alerts");
        assertThat(r.header("Content-Type")).startsWith("application/json");
        SigningSecret secret = SigningSecret.parse(
                ok("GET", "/v1/signing-secret", null).json().get("secret").asText());
        dev.idem.wire.SignatureCheck check = new StandardWebhooksVerifier(List.of(secret), Duration.ofMinutes(5), clock)
                .verify(r.header("webhook-id"), r.header("webhook-timestamp"), r.header("webhook-signature"), r.body());
        assertThat(check.valid()).as("signature: %s", check.reason()).isTrue();
        // a delivery like any other: fetched by its id, not a schedule in the user's list
        JsonNode delivery =
                ok("GET", "/v1/deliveries/" + r.header("webhook-id"), null).json();
        assertThat(delivery.get("schedule_id").asText()).isEqualTo(r.header("Idem-Schedule-Id"));
        assertThat(listedSchedules()).doesNotContain(r.header("Idem-Schedule-Id"));
        JsonNode body = ApiClientForTests.JSON.readTree(new String(r.body(), StandardCharsets.UTF_8));
        assertThat(body.get("type").asText()).isEqualTo(event);
        assertThat(body.get("project_id").asText()).startsWith("proj_");
        assertThat(body.get("mode").asText()).isEqualTo("test");
        assertThat(Instant.parse(body.get("occurred_at").asText())).isEqualTo(clock.instant());
        return r;
    }

    static JsonNode body(LoopbackReceiver.Received r) throws Exception {
        return ApiClientForTests.JSON.readTree(r.body());
    }

    @Test
    void aDeadDeliveryAndAnAutoPauseEachSendOneSignedAlertWithTheirIds() throws Exception {
        alertSettings(alerts.url("/alerts"), "[\"delivery.dead\",\"schedule.auto_paused\"]");

        String dying = schedule("/dying", 1, 0);
        JsonNode dead = body(awaitAlert("delivery.dead"));
        JsonNode deadDelivery = onlyDeliveryOf(dying);
        assertThat(deadDelivery.get("status").asText()).isEqualTo("dead");
        assertThat(dead.get("delivery_id").asText())
                .isEqualTo(deadDelivery.get("id").asText());
        assertThat(dead.get("schedule_id").asText()).isEqualTo(dying);
        assertThat(dead.get("endpoint").asText()).isEqualTo(failing.url("/dying"));
        assertThat(dead.get("event_type").asText()).isEqualTo("invoice.reminder");
        assertThat(dead.get("scheduled_for").asText())
                .isEqualTo(deadDelivery.get("scheduled_for").asText());
        assertThat(dead.get("attempts").asInt()).isEqualTo(1);
        assertThat(dead.get("last_status_code").asInt()).isEqualTo(500);
        assertThat(dead.get("last_error").asText()).contains("500");

        String pausing = schedule("/pausing", 5, 1);
        JsonNode paused = body(awaitAlert("schedule.auto_paused"));
        assertThat(ok("GET", "/v1/schedules/" + pausing, null)
                        .json()
                        .get("status")
                        .asText())
                .isEqualTo("paused");
        assertThat(paused.get("schedule_id").asText()).isEqualTo(pausing);
        assertThat(paused.get("endpoint").asText()).isEqualTo(failing.url("/pausing"));
        assertThat(paused.get("paused_reason").asText()).isEqualTo("consecutive_failures");
        assertThat(paused.get("consecutive_failures").asInt()).isEqualTo(1);
        assertThat(paused.get("auto_pause_after").asInt()).isEqualTo(1);
        assertThat(paused.get("delivery_id").asText())
                .isEqualTo(onlyDeliveryOf(pausing).get("id").asText());
        assertThat(paused.get("attempt").asInt()).isEqualTo(1);
        assertThat(paused.get("last_status_code").asInt()).isEqualTo(500);
        assertThat(alerts.requests).hasSize(2);
    }

    @Test
    void anEventNotChosenNoEndpointAndADeadAlertRaiseNothing() throws Exception {
        // only auto-pauses: a dead delivery sends nothing
        alertSettings(alerts.url("/alerts"), "[\"schedule.auto_paused\"]");
        String dying = schedule("/dying", 1, 0);
        String deadId = onlyDeliveryOf(dying).get("id").asText();
        awaitDeliveryStatus(deadId, "dead");
        assertThat(allDeliveries()).as("no alert delivery was written").containsExactly(deadId);

        // no alert endpoint: nothing either
        alertSettings(null, "[\"delivery.dead\",\"schedule.auto_paused\"]");
        String dying2 = schedule("/dying-2", 1, 1);
        String deadId2 = onlyDeliveryOf(dying2).get("id").asText();
        awaitDeliveryStatus(deadId2, "dead");
        assertThat(allDeliveries()).containsExactlyInAnyOrder(deadId, deadId2);

        // an alert endpoint that fails: its alert retries and dies, and that death raises no alert
        alerts.status.set(503);
        alertSettings(alerts.url("/alerts"), "[\"delivery.dead\"]");
        String dying3 = schedule("/dying-3", 1, 0);
        String deadId3 = onlyDeliveryOf(dying3).get("id").asText();
        awaitDeliveryStatus(deadId3, "dead");
        Set<String> withAlert = allDeliveries();
        assertThat(withAlert).hasSize(4);
        String alertId = withAlert.stream()
                .filter(id -> !Set.of(deadId, deadId2, deadId3).contains(id))
                .collect(Collectors.joining());
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            // each retry of the alert is due within minutes (default policy): move time on until it is dead
            clock.advance(Duration.ofMinutes(6));
            return "dead"
                    .equals(ok("GET", "/v1/deliveries/" + alertId, null)
                            .json()
                            .get("status")
                            .asText());
        });
        JsonNode deadAlert = ok("GET", "/v1/deliveries/" + alertId, null).json();
        // it died by its 8 attempts or by its 24 h age, whichever came first: the backoff has full jitter (the node's
        // SecureRandom) and the clock moves 6 min per poll, so a run whose draws add up past a day stops at 7 (seen in
        // CI on 2026-11-27: attempts 16 h apart from the first to the seventh)
        int attempts = deadAlert.get("attempts").size();
        assertThat(attempts).as("the alert was retried before it died").isBetween(2, 8);
        assertThat(alerts.requests)
                .hasSize(attempts)
                .allMatch(r -> "delivery.dead".equals(r.header("Idem-Event-Type")));
        assertThat(allDeliveries()).as("the dead alert raised no alert").isEqualTo(withAlert);
    }
}

package dev.idem.core.outcome;

import static dev.idem.core.outcome.Fixtures.dead;
import static dev.idem.core.outcome.Fixtures.retrying;
import static dev.idem.core.outcome.Fixtures.succeeded;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.core.AlertEvent;
import dev.idem.core.Origin;
import dev.idem.core.ProjectSettings;
import dev.idem.core.RetryPolicy;
import dev.idem.core.Schedule;
import dev.idem.core.Tenant;
import dev.idem.core.store.DeliveryQueue;
import dev.idem.core.store.DeliveryQueue.Outcome;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class AlertRulesTest {
    private static final Instant AT = Instant.parse("2026-03-10T17:00:00Z");
    private static final String ENDPOINT = "https://ops.example.com/alerts";
    private final Schedule schedule = Fixtures.schedule("sch_1", Fixtures.once(AT, RetryPolicy.DEFAULT, 2), AT);
    private final List<Tenant> asked = new ArrayList<>();

    private Function<Tenant, ProjectSettings> settings(AlertEvent... chosen) {
        return t -> {
            asked.add(t);
            return new ProjectSettings(
                    t, ENDPOINT, chosen.length == 0 ? EnumSet.noneOf(AlertEvent.class) : EnumSet.of(chosen[0], chosen));
        };
    }

    private static JsonNode json(byte[] body) throws Exception {
        return new ObjectMapper().readTree(body);
    }

    @Test
    void aBatchWithNoDeathAndNoPauseRaisesNothingAndNeedsNothingRead() {
        assertThat(AlertRules.mayRaise(DeliveryQueue.Completed.NONE)).isFalse();
        assertThat(AlertRules.mayRaise(new DeliveryQueue.Completed(List.of("dlv_1"), List.of(), List.of())))
                .isFalse();
    }

    @Test
    void theFactsToReadAreTheFirstAppliedFailureOfEachDelivery() {
        Outcome first = retrying("dlv_1", 1, AT);
        Outcome notApplied = dead("dlv_2", 3, AT);
        List<Outcome> outcomes = List.of(succeeded("dlv_0", 1, AT), first, dead("dlv_1", 1, AT), notApplied);
        DeliveryQueue.Completed completed =
                new DeliveryQueue.Completed(List.of("dlv_0", "dlv_1"), List.of(), List.of());
        assertThat(AlertRules.failedApplied(outcomes, completed)).containsExactly(Map.entry("dlv_1", first));
    }

    @Test
    void aDeadDeliveryRaisesDeliveryDeadToTheTenantsAlertEndpoint() throws Exception {
        Outcome o = dead("dlv_1", 3, AT);
        DeliveryQueue.Completed completed = new DeliveryQueue.Completed(
                List.of("dlv_1"), List.of(new DeliveryQueue.Dead("dlv_1", "sch_1", 3, "HTTP 500")), List.of());
        List<AlertRules.Alert> alerts = AlertRules.alerts(
                List.of(o),
                completed,
                Map.of("dlv_1", new AlertRules.Failed(o, schedule, AT)),
                settings(AlertEvent.DELIVERY_DEAD),
                AT.plusSeconds(9));
        assertThat(alerts).hasSize(1);
        AlertRules.Alert a = alerts.get(0);
        assertThat(a.event()).isEqualTo(AlertEvent.DELIVERY_DEAD);
        assertThat(a.about()).isEqualTo("dlv_1");
        assertThat(a.request().endpoint()).isEqualTo(ENDPOINT);
        assertThat(a.request().origin().kind()).isEqualTo(Origin.Kind.ALERT);
        assertThat(a.request().eventType()).isEqualTo("delivery.dead");
        JsonNode body = json(a.body());
        assertThat(body.get("type").asText()).isEqualTo("delivery.dead");
        assertThat(body.get("delivery_id").asText()).isEqualTo("dlv_1");
        assertThat(body.get("schedule_id").asText()).isEqualTo("sch_1");
        assertThat(body.get("attempts").asInt()).isEqualTo(3);
        assertThat(body.get("last_status_code").asInt()).isEqualTo(500);
        assertThat(body.get("occurred_at").asText()).isEqualTo("2026-03-10T17:00:09.000Z");
    }

    @Test
    void anAutoPauseIsReportedWithTheScheduleLastFailureInTheBatch() throws Exception {
        Outcome earlier = retrying("dlv_1", 1, AT);
        Outcome last = retrying("dlv_2", 2, AT);
        DeliveryQueue.Completed completed = new DeliveryQueue.Completed(
                List.of("dlv_1", "dlv_2"), List.of(), List.of(new DeliveryQueue.AutoPaused("sch_1", 2)));
        List<AlertRules.Alert> alerts = AlertRules.alerts(
                List.of(earlier, last),
                completed,
                Map.of(
                        "dlv_1", new AlertRules.Failed(earlier, schedule, AT),
                        "dlv_2", new AlertRules.Failed(last, schedule, AT)),
                settings(AlertEvent.SCHEDULE_AUTO_PAUSED),
                AT);
        assertThat(alerts).extracting(AlertRules.Alert::event).containsExactly(AlertEvent.SCHEDULE_AUTO_PAUSED);
        JsonNode body = json(alerts.get(0).body());
        assertThat(body.get("schedule_id").asText()).isEqualTo("sch_1");
        assertThat(body.get("delivery_id").asText()).isEqualTo("dlv_2");
        assertThat(body.get("attempt").asInt()).isEqualTo(2);
        assertThat(body.get("consecutive_failures").asInt()).isEqualTo(2);
        assertThat(alerts.get(0).about()).isEqualTo("sch_1");
    }

    @Test
    void anEventTheTenantDidNotChooseRaisesNothingAndSettingsAreAskedOncePerTenant() {
        Outcome a = dead("dlv_1", 3, AT);
        Outcome b = dead("dlv_2", 3, AT);
        DeliveryQueue.Completed completed = new DeliveryQueue.Completed(
                List.of("dlv_1", "dlv_2"),
                List.of(
                        new DeliveryQueue.Dead("dlv_1", "sch_1", 3, "HTTP 500"),
                        new DeliveryQueue.Dead("dlv_2", "sch_1", 3, "HTTP 500")),
                List.of());
        List<AlertRules.Alert> alerts = AlertRules.alerts(
                List.of(a, b),
                completed,
                Map.of(
                        "dlv_1",
                        new AlertRules.Failed(a, schedule, AT),
                        "dlv_2",
                        new AlertRules.Failed(b, schedule, AT)),
                settings(AlertEvent.SCHEDULE_AUTO_PAUSED),
                AT);
        assertThat(alerts).isEmpty();
        assertThat(asked).containsExactly(Fixtures.TENANT);
    }

    @Test
    void theDeliveryOfAnAlertNeverRaisesOne() {
        Schedule alert = Fixtures.alertSchedule("sch_alert", Fixtures.once(AT, RetryPolicy.DEFAULT, 0), AT);
        Outcome o = dead("dlv_1", 3, AT);
        DeliveryQueue.Completed completed = new DeliveryQueue.Completed(
                List.of("dlv_1"), List.of(new DeliveryQueue.Dead("dlv_1", "sch_alert", 3, "HTTP 500")), List.of());
        assertThat(AlertRules.alerts(
                        List.of(o),
                        completed,
                        Map.of("dlv_1", new AlertRules.Failed(o, alert, AT)),
                        settings(AlertEvent.DELIVERY_DEAD),
                        AT))
                .isEmpty();
        assertThat(asked).isEmpty();
    }
}

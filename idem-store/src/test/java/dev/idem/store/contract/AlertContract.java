package dev.idem.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.core.AlertEvent;
import dev.idem.core.Attempt;
import dev.idem.core.Delivery;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.Origin;
import dev.idem.core.ProjectSettings;
import dev.idem.core.Schedule;
import dev.idem.core.ScheduleStatus;
import dev.idem.core.store.DeliveryQueue.Claim;
import dev.idem.core.store.DeliveryQueue.Outcome;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Alerts are written by {@code complete}, in the transaction that records the outcome: once per delivery made dead and
 * per schedule paused, to the tenant's alert endpoint when it chose the event, never for an alert's own delivery.
 */
abstract class AlertContract extends StoreTestBase {
    static final String ALERTS = "https://ops.example.com/idem-alerts";
    static final Duration LEASE = Duration.ofSeconds(30);
    static final ObjectMapper JSON = new ObjectMapper();

    void settings(String endpoint, Set<AlertEvent> events) {
        store.useTransaction(tx -> tx.settings().save(new ProjectSettings(tenant, endpoint, events)));
    }

    Claim claimOne() {
        List<Claim> claims = store.queue().claimDue("node-a", LEASE, 10);
        assertThat(claims).hasSize(1);
        return claims.get(0);
    }

    Outcome failed(Claim c, DeliveryStatus status) {
        Delivery d = c.delivery();
        Attempt a =
                new Attempt(ids.next("att"), d.id(), d.attemptCount(), clock.instant(), 12, 503, "HTTP 503", "down");
        return new Outcome(
                d.id(),
                a,
                status,
                status == DeliveryStatus.RETRYING ? clock.instant().plusSeconds(60) : null,
                "HTTP 503");
    }

    /** The tenant's deliveries that are alerts, oldest first, with their schedules. */
    List<Schedule> alertSchedules() {
        return store.inReadTransaction(tx -> tx.deliveries().list(tenant, null, null, 100, null).data().stream()
                .map(d -> tx.schedules().find(tenant, d.scheduleId()).orElseThrow())
                .filter(s -> s.origin() != null && s.origin().kind() == Origin.Kind.ALERT)
                .sorted(java.util.Comparator.comparing(Schedule::id))
                .toList());
    }

    static JsonNode body(Schedule alert) throws Exception {
        return JSON.readTree(alert.definition().body());
    }

    @Test
    void aDeadDeliveryRaisesOneAlertWithItsIdsAndLastError() throws Exception {
        settings(ALERTS, EnumSet.allOf(AlertEvent.class));
        Schedule user = scheduleWithAutoPause(0);
        Delivery d = delivery(user, T0);
        Claim c = claimOne();
        clock.advance(Duration.ofSeconds(2));
        store.queue().complete("node-a", List.of(failed(c, DeliveryStatus.DEAD)));

        List<Schedule> alerts = alertSchedules();
        assertThat(alerts).hasSize(1);
        Schedule alert = alerts.get(0);
        assertThat(alert.definition().endpoint()).isEqualTo(ALERTS);
        assertThat(alert.definition().eventType()).isEqualTo("delivery.dead");
        assertThat(alert.definition().contentType()).isEqualTo("application/json");
        assertThat(alert.tenant()).isEqualTo(tenant);
        JsonNode b = body(alert);
        assertThat(b.get("type").asText()).isEqualTo("delivery.dead");
        assertThat(b.get("occurred_at").asText()).isEqualTo("2030-01-01T00:00:02.000Z");
        assertThat(b.get("project_id").asText()).isEqualTo(tenant.projectId());
        assertThat(b.get("mode").asText()).isEqualTo("test");
        assertThat(b.get("delivery_id").asText()).isEqualTo(d.id());
        assertThat(b.get("schedule_id").asText()).isEqualTo(user.id());
        assertThat(b.get("source_id").isNull()).isTrue();
        assertThat(b.get("endpoint").asText()).isEqualTo(user.definition().endpoint());
        assertThat(b.get("event_type").asText()).isEqualTo("invoice.reminder");
        assertThat(b.get("scheduled_for").asText()).isEqualTo("2030-01-01T00:00:00.000Z");
        assertThat(b.get("attempts").asInt()).isEqualTo(1);
        assertThat(b.get("last_status_code").asInt()).isEqualTo(503);
        assertThat(b.get("last_error").asText()).isEqualTo("HTTP 503");
        // the alert is due now: the next claim takes it
        Claim alertClaim = claimOne();
        assertThat(alertClaim.schedule().id()).isEqualTo(alert.id());
        // hidden from the user's schedule list, visible among the deliveries
        List<Schedule> listed = store.inReadTransaction(
                tx -> tx.schedules().list(tenant, null, 100, null).data());
        assertThat(listed).extracting(Schedule::id).containsExactly(user.id());
    }

    @Test
    void anAutoPauseRaisesOneAlertNamingTheAttemptThatReachedTheThreshold() throws Exception {
        settings(ALERTS, EnumSet.of(AlertEvent.SCHEDULE_AUTO_PAUSED));
        Schedule user = scheduleWithAutoPause(2);
        Delivery d = delivery(user, T0);
        store.queue().complete("node-a", List.of(failed(claimOne(), DeliveryStatus.RETRYING)));
        assertThat(alertSchedules()).as("one failure of two: no pause yet").isEmpty();
        clock.advance(Duration.ofSeconds(61));
        store.queue().complete("node-a", List.of(failed(claimOne(), DeliveryStatus.RETRYING)));

        assertThat(store.inReadTransaction(tx -> tx.schedules().find(tenant, user.id()))
                        .orElseThrow()
                        .status())
                .isEqualTo(ScheduleStatus.PAUSED);
        List<Schedule> alerts = alertSchedules();
        assertThat(alerts).hasSize(1);
        assertThat(alerts.get(0).definition().eventType()).isEqualTo("schedule.auto_paused");
        JsonNode b = body(alerts.get(0));
        assertThat(b.get("type").asText()).isEqualTo("schedule.auto_paused");
        assertThat(b.get("schedule_id").asText()).isEqualTo(user.id());
        assertThat(b.get("paused_reason").asText()).isEqualTo("consecutive_failures");
        assertThat(b.get("consecutive_failures").asInt()).isEqualTo(2);
        assertThat(b.get("auto_pause_after").asInt()).isEqualTo(2);
        assertThat(b.get("delivery_id").asText()).isEqualTo(d.id());
        assertThat(b.get("attempt").asInt()).isEqualTo(2);
        assertThat(b.get("last_status_code").asInt()).isEqualTo(503);
        assertThat(b.get("last_error").asText()).isEqualTo("HTTP 503");
        assertThat(b.get("occurred_at").asText()).isEqualTo("2030-01-01T00:01:01.000Z");
    }

    @Test
    void aDeliveryThatPausesItsScheduleAndDiesRaisesBothEventsInOneTransaction() {
        settings(ALERTS, EnumSet.allOf(AlertEvent.class));
        Schedule user = scheduleWithAutoPause(1);
        delivery(user, T0);
        store.queue().complete("node-a", List.of(failed(claimOne(), DeliveryStatus.DEAD)));
        assertThat(alertSchedules())
                .extracting(s -> s.definition().eventType())
                .containsExactlyInAnyOrder("delivery.dead", "schedule.auto_paused");
    }

    @Test
    void anAlertsOwnDeathOrFailureRaisesNothing() {
        settings(ALERTS, EnumSet.allOf(AlertEvent.class));
        delivery(scheduleWithAutoPause(0), T0);
        store.queue().complete("node-a", List.of(failed(claimOne(), DeliveryStatus.DEAD)));
        assertThat(alertSchedules()).hasSize(1);
        Claim alert = claimOne();
        assertThat(alert.schedule().origin()).isEqualTo(Origin.alert());
        store.queue().complete("node-a", List.of(failed(alert, DeliveryStatus.DEAD)));
        assertThat(alertSchedules()).as("the dead alert raised no alert").hasSize(1);
        List<Delivery> dead = store.inReadTransaction(tx -> tx.deliveries()
                .list(tenant, null, DeliveryStatus.DEAD, 100, null)
                .data());
        assertThat(dead).hasSize(2);
    }

    @Test
    void anEventTheTenantDidNotChooseOrNoEndpointRaisesNothing() {
        settings(ALERTS, EnumSet.of(AlertEvent.SCHEDULE_AUTO_PAUSED));
        delivery(scheduleWithAutoPause(0), T0);
        store.queue().complete("node-a", List.of(failed(claimOne(), DeliveryStatus.DEAD)));
        assertThat(alertSchedules()).isEmpty();

        settings(null, EnumSet.allOf(AlertEvent.class));
        delivery(scheduleWithAutoPause(1), T0);
        store.queue().complete("node-a", List.of(failed(claimOne(), DeliveryStatus.DEAD)));
        assertThat(alertSchedules()).isEmpty();
    }

    @Test
    void aStaleOutcomeRaisesNothingAndAnotherTenantsSettingsDoNotApply() {
        settings(ALERTS, EnumSet.allOf(AlertEvent.class));
        Schedule s = scheduleWithAutoPause(0);
        delivery(s, T0);
        Claim c = claimOne();
        // the lease is lost: another node reclaims the delivery, the first owner's dead outcome is dropped
        clock.advance(LEASE.plusSeconds(1));
        store.queue().reapExpired();
        assertThat(store.queue().claimDue("node-b", LEASE, 10)).hasSize(1);
        store.queue().complete("node-a", List.of(failed(c, DeliveryStatus.DEAD)));
        assertThat(alertSchedules()).isEmpty();

        dev.idem.core.Tenant other = new dev.idem.core.Tenant("prj_other", dev.idem.core.Mode.TEST);
        Schedule theirs = schedule(other, clock.instant());
        delivery(theirs, clock.instant());
        Claim their = store.queue().claimDue("node-c", LEASE, 10).get(0);
        store.queue().complete("node-c", List.of(failed(their, DeliveryStatus.DEAD)));
        List<Delivery> theirDeliveries = store.inReadTransaction(
                tx -> tx.deliveries().list(other, null, null, 100, null).data());
        assertThat(theirDeliveries).as("no alert in the other tenant either").hasSize(1);
        assertThat(alertSchedules()).isEmpty();
    }
}

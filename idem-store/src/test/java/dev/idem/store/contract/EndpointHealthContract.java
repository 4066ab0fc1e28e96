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
import dev.idem.core.fanout.DisabledReason;
import dev.idem.core.fanout.Endpoint;
import dev.idem.core.fanout.Message;
import dev.idem.core.fanout.MessageSending;
import dev.idem.core.outcome.EndpointHealth;
import dev.idem.core.store.DeliveryQueue.Claim;
import dev.idem.core.store.DeliveryQueue.Outcome;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Endpoint health on both stores, kept by the transaction that records outcomes: success rate and last failure; an
 * endpoint whose every attempt has failed for the project's {@code disable_after} is disabled with one
 * {@code endpoint.disabled} alert; a success in between, or enabling it again, restarts the count. Time moves on the
 * store's clock.
 */
abstract class EndpointHealthContract extends StoreTestBase {
    static final String ALERTS = "https://ops.example.com/idem-alerts";
    static final ObjectMapper JSON = new ObjectMapper();

    private Endpoint endpoint() {
        Endpoint e = endpoint(tenant, null);
        store.useTransaction(tx -> tx.endpoints().insert(e));
        return e;
    }

    private void settings(Duration disableAfter) {
        store.useTransaction(tx ->
                tx.settings().save(new ProjectSettings(tenant, ALERTS, EnumSet.allOf(AlertEvent.class), disableAfter)));
    }

    /** Sends one message to the tenant's endpoints now and records its one attempt: succeeded or failed (dead). */
    private void attempt(boolean succeeds) {
        Message m = Message.sent(ids.next("msg"), tenant, "invoice.paid", null, "{}", null, null, clock.instant());
        store.useTransaction(tx -> MessageSending.send(tx, ids, m, JSON.createObjectNode(), clock.instant()));
        // an alert written earlier may be claimed too; it is left leased
        List<Claim> claims = store.queue().claimDue("node-a", Duration.ofSeconds(30), 10).stream()
                .filter(c -> c.delivery().endpointId() != null)
                .toList();
        assertThat(claims).hasSize(1);
        Delivery d = claims.get(0).delivery();
        Attempt a = new Attempt(
                ids.next("att"),
                d.id(),
                d.attemptCount(),
                clock.instant(),
                12,
                succeeds ? 200 : 503,
                succeeds ? null : "HTTP 503",
                null);
        store.queue()
                .complete(
                        "node-a",
                        List.of(new Outcome(
                                d.id(),
                                a,
                                succeeds ? DeliveryStatus.SUCCEEDED : DeliveryStatus.DEAD,
                                null,
                                succeeds ? null : "HTTP 503")));
    }

    private Endpoint reread(Endpoint e) {
        return store.inReadTransaction(tx -> tx.endpoints().find(tenant, e.id()))
                .orElseThrow();
    }

    private EndpointHealth health(Endpoint e) {
        return store.inReadTransaction(tx -> tx.endpointHealth().find(tenant, List.of(e.id())))
                .get(e.id());
    }

    private List<Schedule> disabledAlerts() {
        return store.inReadTransaction(tx -> tx.deliveries().list(tenant, null, null, 100, null).data().stream()
                .map(d -> tx.schedules().find(tenant, d.scheduleId()).orElseThrow())
                .filter(s -> s.origin() != null && s.origin().kind() == Origin.Kind.ALERT)
                .filter(s -> "endpoint.disabled".equals(s.definition().eventType()))
                .toList());
    }

    @Test
    void anEndpointFailingEveryAttemptForDisableAfterIsDisabledWithOneAlert() throws Exception {
        settings(EndpointHealth.DEFAULT_DISABLE_AFTER);
        Endpoint e = endpoint();
        attempt(false);
        clock.advance(Duration.ofDays(3));
        attempt(false);
        assertThat(reread(e).disabled()).isFalse();
        assertThat(health(e).failingSince()).isEqualTo(T0);

        clock.advance(Duration.ofDays(2));
        attempt(false);
        assertThat(reread(e).disabledReason()).isEqualTo(DisabledReason.FAILING);
        List<Schedule> alerts = disabledAlerts();
        assertThat(alerts).hasSize(1);
        assertThat(alerts.get(0).definition().endpoint()).isEqualTo(ALERTS);
        JsonNode body = JSON.readTree(alerts.get(0).definition().body());
        assertThat(body.get("type").asText()).isEqualTo("endpoint.disabled");
        assertThat(body.get("endpoint_id").asText()).isEqualTo(e.id());
        assertThat(body.get("failing_since").asText()).isEqualTo("2030-01-01T00:00:00.000Z");
        assertThat(body.get("disable_after").asText()).isEqualTo("5d");
        assertThat(body.get("last_error").asText()).isEqualTo("HTTP 503");

        // disabled, it is sent nothing more, so it is neither disabled again nor alerted about twice
        Message m = Message.sent(ids.next("msg"), tenant, "invoice.paid", null, "{}", null, null, clock.instant());
        var sent = store.inTransaction(tx -> MessageSending.send(tx, ids, m, JSON.createObjectNode(), clock.instant()));
        assertThat(sent.orElseThrow().deliveries()).isZero();
        assertThat(disabledAlerts()).hasSize(1);
    }

    @Test
    void aSuccessInBetweenRestartsTheCountAndTheRateCountsBoth() {
        settings(EndpointHealth.DEFAULT_DISABLE_AFTER);
        Endpoint e = endpoint();
        attempt(false);
        clock.advance(Duration.ofDays(3));
        attempt(true);
        clock.advance(Duration.ofHours(1));
        attempt(false);
        clock.advance(Duration.ofDays(4));
        attempt(false);
        assertThat(reread(e).disabled()).isFalse();
        EndpointHealth h = health(e);
        assertThat(h.failingSince()).isEqualTo(T0.plus(Duration.ofDays(3)).plus(Duration.ofHours(1)));
        assertThat(h.lastSuccessAt()).isEqualTo(T0.plus(Duration.ofDays(3)));
        assertThat(h.lastFailure()).isEqualTo("HTTP 503");
        // the windows a day long: only the attempts of the last one or two days count
        assertThat(h.successRate(clock.instant())).isEqualTo(0.0);
        clock.advance(Duration.ofDays(1).plusHours(1));
        attempt(false);
        assertThat(reread(e).disabledReason()).isEqualTo(DisabledReason.FAILING);
    }

    @Test
    void enablingAgainForgetsTheFailuresSoFarAndWritesNoDelivery() {
        settings(Duration.ofHours(1));
        Endpoint e = endpoint();
        attempt(false);
        clock.advance(Duration.ofHours(1));
        attempt(false);
        assertThat(reread(e).disabledReason()).isEqualTo(DisabledReason.FAILING);
        long before = store.inReadTransaction(tx ->
                        tx.deliveries().list(tenant, null, null, 100, null).data())
                .size();

        store.useTransaction(tx -> {
            tx.endpoints().update(reread(e).withDisabled(null, clock.instant()));
            tx.endpointHealth().enabledAgain(tenant, e.id());
        });
        assertThat(store.inReadTransaction(tx -> tx.deliveries()
                                .list(tenant, null, null, 100, null)
                                .data())
                        .size())
                .isEqualTo(before);
        clock.advance(Duration.ofMinutes(1));
        attempt(false);
        assertThat(reread(e).disabled()).isFalse();
        assertThat(health(e).failingSince()).isEqualTo(clock.instant());
    }

    @Test
    void anotherTenantSeesNoHealth() {
        Endpoint e = endpoint();
        attempt(true);
        assertThat(health(e).successRate(clock.instant())).isEqualTo(1.0);
        var other = new dev.idem.core.Tenant("prj_other", tenant.mode());
        Map<String, EndpointHealth> seen =
                store.inReadTransaction(tx -> tx.endpointHealth().find(other, List.of(e.id())));
        assertThat(seen).isEmpty();
    }
}

package dev.idem.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.core.Attempt;
import dev.idem.core.Delivery;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.Schedule;
import dev.idem.core.ScheduleStatus;
import dev.idem.core.fanout.DisabledReason;
import dev.idem.core.fanout.Endpoint;
import dev.idem.core.fanout.Message;
import dev.idem.core.fanout.MessageSending;
import dev.idem.core.store.DeliveryQueue.Claim;
import dev.idem.core.store.DeliveryQueue.Outcome;
import dev.idem.core.store.StoreTx;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A paused schedule's pending deliveries leave the due indexes while it is paused (they are marked held), so no claim,
 * next-due question or stats read walks past them; every way out of the pause lets them go again, and they are then
 * claimed and delivered. The one thing that must never happen: a held row whose schedule is not paused, which nothing
 * would ever claim. Each scenario checks the mark through SQL and the queue's behaviour through the store.
 */
abstract class HeldRowsContract extends StoreTestBase {
    static final Duration LEASE = Duration.ofSeconds(60);
    static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void aPausedSchedulesDueRowsAreHeldReadAsBeforeAndClaimedAndDeliveredOnceItResumes() throws Exception {
        Schedule s = schedule(tenant, T0);
        List<Delivery> rows = List.of(delivery(s, T0), delivery(s, T0.plusMillis(1)));
        clock.advance(Duration.ofSeconds(1));
        Delivery before = find(rows.get(0));
        setStatus(s, ScheduleStatus.PAUSED, Schedule.PAUSED_BY_USER);
        assertHeldAndNotClaimed(rows);
        assertThat(find(rows.get(0)))
                .as("the mark is internal: a delivery reads as before")
                .isEqualTo(before);

        setStatus(s, ScheduleStatus.ACTIVE, null);
        assertReleasedClaimedAndDelivered(rows);
    }

    @Test
    void anEndpointsDeliveriesAreHeldWhileItIsDisabledAndDeliveredOnceItIsEnabled() throws Exception {
        Endpoint e = endpoint(tenant, null);
        store.useTransaction(tx -> tx.endpoints().insert(e));
        send();
        send();
        List<Delivery> rows = pending();
        assertThat(rows).hasSize(2);

        Endpoint disabled = e.withDisabled(DisabledReason.MANUAL, T0);
        store.useTransaction(tx -> tx.endpoints().update(disabled));
        assertHeldAndNotClaimed(rows);
        send(); // goes to no endpoint: a disabled one receives no message
        assertThat(pending()).hasSize(2);

        store.useTransaction(tx -> tx.endpoints().update(disabled.withDisabled(null, T0)));
        assertReleasedClaimedAndDelivered(rows);
    }

    @Test
    void anAutoPausedSchedulesWaitingRowIsHeldAndDeliveredOnceItResumes() throws Exception {
        Schedule s = scheduleWithAutoPause(1);
        Delivery failing = delivery(s, T0);
        Delivery waiting = delivery(s, T0.plusSeconds(10));
        Claim c = single(store.queue().claimDue("n", LEASE, 10));
        assertThat(c.delivery().id()).isEqualTo(failing.id());
        complete(c, DeliveryStatus.DEAD, null);
        assertThat(findSchedule(s).status()).isEqualTo(ScheduleStatus.PAUSED);
        clock.advance(Duration.ofSeconds(20));
        assertHeldAndNotClaimed(List.of(waiting));

        setStatus(findSchedule(s), ScheduleStatus.ACTIVE, null);
        assertReleasedClaimedAndDelivered(List.of(waiting));
    }

    @Test
    void aRetryOfAnAttemptInFlightWhenThePauseCameWaitsUnheldAndIsDeliveredOnceItResumes() throws Exception {
        Schedule s = schedule(tenant, T0);
        Delivery d = delivery(s, T0);
        Claim c = single(store.queue().claimDue("n", LEASE, 10));
        setStatus(s, ScheduleStatus.PAUSED, Schedule.PAUSED_BY_USER);
        complete(c, DeliveryStatus.RETRYING, T0.plusSeconds(5));
        clock.advance(Duration.ofSeconds(10));
        // written pending while its schedule was already paused: not marked, left out by its schedule's status
        assertThat(held()).isZero();
        assertThat(store.queue().claimDue("n", LEASE, 10)).isEmpty();
        assertThat(store.queue().nextDueAt()).isEmpty();

        setStatus(s, ScheduleStatus.ACTIVE, null);
        assertReleasedClaimedAndDelivered(List.of(d));
    }

    @Test
    void deletingAPausedScheduleLeavesNoRowHeldAndNothingClaimed() throws Exception {
        Schedule s = schedule(tenant, T0);
        Delivery d = delivery(s, T0);
        setStatus(s, ScheduleStatus.PAUSED, Schedule.PAUSED_BY_USER);
        assertHeldAndNotClaimed(List.of(d));

        store.useTransaction(tx -> {
            tx.schedules().update(s.withStatus(ScheduleStatus.DELETED, null, T0));
            tx.deliveries().cancelPending(s.id(), T0);
        });
        assertThat(held()).isZero();
        assertThat(find(d).status()).isEqualTo(DeliveryStatus.CANCELLED);
        assertThat(store.queue().claimDue("n", LEASE, 10)).isEmpty();
    }

    @Test
    void aHeldRowIsNotReadBeforeAnotherSchedulesClaimableOnes() throws Exception {
        Schedule paused = schedule(tenant, T0);
        List<Delivery> backlog = List.of(delivery(paused, T0), delivery(paused, T0.plusMillis(1)));
        setStatus(paused, ScheduleStatus.PAUSED, Schedule.PAUSED_BY_USER);
        Schedule healthy = schedule(tenant, T0);
        Delivery later = delivery(healthy, T0.plusMillis(5));
        clock.advance(Duration.ofSeconds(1));
        assertThat(held()).isEqualTo(backlog.size());
        assertThat(store.queue().nextDueAt()).contains(later.nextAttemptAt());
        assertThat(stats().oldestDue()).contains(later.nextAttemptAt());
        assertThat(stats().queued()).isEqualTo(1);
        assertThat(store.queue().claimDue("n", LEASE, 10))
                .extracting(c -> c.delivery().id())
                .containsExactly(later.id());
    }

    private void assertHeldAndNotClaimed(List<Delivery> rows) throws Exception {
        assertThat(held()).as("rows marked held").isEqualTo(rows.size());
        assertThat(heldIds()).containsExactlyInAnyOrderElementsOf(ids(rows));
        assertThat(store.queue().claimDue("n", LEASE, 10)).isEmpty();
        assertThat(store.queue().nextDueAt()).isEmpty();
        assertThat(stats().oldestDue()).isEmpty();
        assertThat(stats().queued()).isZero();
    }

    private void assertReleasedClaimedAndDelivered(List<Delivery> rows) throws Exception {
        assertThat(held()).as("rows still marked held").isZero();
        assertThat(store.queue().nextDueAt()).isPresent();
        List<Claim> claims = store.queue().claimDue("n", LEASE, 10);
        assertThat(claims).extracting(c -> c.delivery().id()).containsExactlyInAnyOrderElementsOf(ids(rows));
        for (Claim c : claims) complete(c, DeliveryStatus.SUCCEEDED, null);
        for (Delivery d : rows) assertThat(find(d).status()).isEqualTo(DeliveryStatus.SUCCEEDED);
    }

    private void setStatus(Schedule s, ScheduleStatus status, String reason) {
        store.useTransaction(tx -> tx.schedules().update(s.withStatus(status, reason, clock.instant())));
    }

    private void send() {
        Message m = Message.sent(ids.next("msg"), tenant, "invoice.paid", null, "{}", null, null, clock.instant());
        store.useTransaction(tx -> MessageSending.send(tx, ids, m, JSON.createObjectNode(), clock.instant()));
    }

    private List<Delivery> pending() {
        return store.inReadTransaction(tx -> tx.deliveries().list(tenant, null, null, 100, null).data().stream()
                .filter(d -> d.status() == DeliveryStatus.SCHEDULED)
                .toList());
    }

    private void complete(Claim c, DeliveryStatus status, java.time.Instant retryAt) {
        Delivery d = c.delivery();
        boolean ok = status == DeliveryStatus.SUCCEEDED;
        Attempt a = new Attempt(
                ids.next("att"),
                d.id(),
                d.attemptCount(),
                clock.instant(),
                5,
                ok ? 200 : 500,
                ok ? null : "HTTP 500",
                null);
        store.queue().complete("n", List.of(new Outcome(d.id(), a, status, retryAt, ok ? null : "HTTP 500")));
    }

    private dev.idem.core.store.StatsRepository.DeliveryStats stats() {
        return store.inReadTransaction(
                tx -> tx.stats().deliveryStats(tenant, clock.instant().minusSeconds(60), clock.instant()));
    }

    private static Claim single(List<Claim> claims) {
        assertThat(claims).hasSize(1);
        return claims.get(0);
    }

    private static List<String> ids(Collection<Delivery> rows) {
        return rows.stream().map(Delivery::id).toList();
    }

    private Delivery find(Delivery d) {
        return store.inTransaction((StoreTx tx) -> tx.deliveries().find(d.tenant(), d.id()))
                .orElseThrow();
    }

    private Schedule findSchedule(Schedule s) {
        return store.inTransaction((StoreTx tx) -> tx.schedules().find(s.tenant(), s.id()))
                .orElseThrow();
    }

    /** How many rows are marked held, whatever their status. */
    private long held() throws Exception {
        return heldIds().size();
    }

    private List<String> heldIds() throws Exception {
        try (Connection c = database.connect();
                PreparedStatement s = c.prepareStatement("SELECT id FROM deliveries WHERE held IS NOT NULL");
                ResultSet rs = s.executeQuery()) {
            List<String> out = new java.util.ArrayList<>();
            while (rs.next()) out.add(rs.getString(1));
            return out;
        }
    }
}

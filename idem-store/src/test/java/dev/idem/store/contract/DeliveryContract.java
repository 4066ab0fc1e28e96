package dev.idem.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.store.StoreTx;

import dev.idem.core.Attempt;
import dev.idem.core.Delivery;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.Mode;
import dev.idem.core.Page;
import dev.idem.core.Schedule;
import dev.idem.core.Tenant;
import dev.idem.core.store.DeliveryQueue.Claim;
import dev.idem.core.store.DeliveryQueue.Outcome;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

abstract class DeliveryContract extends StoreTestBase {
    @Test
    void insertIfAbsentCreatesEachOccurrenceOnceUnderARace() throws Exception {
        Schedule s = schedule(tenant, T0);
        List<Boolean> inserted = Race.run(8, () -> store.inTransaction(
                tx -> tx.deliveries().insertIfAbsent(Delivery.scheduled(ids.next("dlv"), s, T0, 1, T0))));
        assertThat(inserted).containsOnlyOnce(true);
        assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().list(tenant, s.id(), null, 10, null)).data()).hasSize(1);
    }

    @Test
    void aDeliveryReadsBackExactlyAsWritten() {
        Schedule s = schedule(tenant, T0);
        Delivery d = delivery(s, T0.plusMillis(1));
        assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().find(tenant, d.id()))).contains(d);
    }

    @Test
    void anotherTenantsDeliveryIsInvisible() {
        Schedule s = schedule(tenant, T0);
        Delivery d = delivery(s, T0);
        for (Tenant t : List.of(new Tenant("prj_b", Mode.TEST), new Tenant(tenant.projectId(), Mode.LIVE))) {
            assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().find(t, d.id()))).isEmpty();
            assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().list(t, null, null, 10, null)).data()).isEmpty();
            assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().list(t, s.id(), null, 10, null)).data()).isEmpty();
            assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().requeueForReplay(t, d.id(), T0))).isFalse();
        }
    }

    @Test
    void listPagesNewestFirstFilteredByScheduleAndStatus() {
        Schedule a = schedule(tenant, T0);
        Schedule b = schedule(tenant, T0);
        for (int i = 0; i < 5; i++) {
            clock.advance(Duration.ofMillis(3));
            delivery(a, T0.plusSeconds(i));
            delivery(b, T0.plusSeconds(i));
        }
        Page<Delivery> p1 = store.inTransaction((StoreTx tx) -> tx.deliveries().list(tenant, a.id(), null, 2, null));
        assertThat(p1.hasMore()).isTrue();
        assertThat(p1.data()).extracting(Delivery::scheduledFor).containsExactly(T0.plusSeconds(4), T0.plusSeconds(3));
        Page<Delivery> p2 = store.inTransaction((StoreTx tx) -> tx.deliveries().list(tenant, a.id(), null, 10, p1.data().get(1).id()));
        assertThat(p2.data()).extracting(Delivery::scheduledFor).containsExactly(T0.plusSeconds(2), T0.plusSeconds(1), T0);
        assertThat(p2.hasMore()).isFalse();

        assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().list(tenant, null, DeliveryStatus.SCHEDULED, 100, null)).data()).hasSize(10);
        assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().list(tenant, null, DeliveryStatus.DEAD, 100, null)).data()).isEmpty();
    }

    @Test
    void theDeadLetterQueueListsDeadDeliveriesNewestFirst() {
        Schedule s = schedule(tenant, T0);
        List<Delivery> ds = new java.util.ArrayList<>();
        for (int i = 0; i < 4; i++) {
            clock.advance(Duration.ofMillis(2)); // ids order by creation time only across milliseconds
            ds.add(delivery(s, T0.plusMillis(i)));
        }
        store.queue().claimDue("n", Duration.ofMinutes(1), 10);
        store.queue().complete("n", ds.stream().map(d -> new Outcome(d.id(), attempt(d, 1, 500),
                d == ds.get(1) ? DeliveryStatus.SUCCEEDED : DeliveryStatus.DEAD, null, "HTTP 500")).toList());
        Page<Delivery> dead = store.inTransaction((StoreTx tx) -> tx.deliveries().list(tenant, null, DeliveryStatus.DEAD, 2, null));
        assertThat(dead.data()).extracting(Delivery::id).containsExactly(ds.get(3).id(), ds.get(2).id());
        assertThat(dead.hasMore()).isTrue();
        Page<Delivery> rest = store.inTransaction((StoreTx tx) -> tx.deliveries().list(tenant, null, DeliveryStatus.DEAD, 2, ds.get(2).id()));
        assertThat(rest.data()).extracting(Delivery::id).containsExactly(ds.get(0).id());
        assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().list(new Tenant("prj_b", Mode.TEST), null, DeliveryStatus.DEAD, 10,
                null)).data()).isEmpty();
    }

    @Test
    void cancelPendingCancelsOnlyScheduledAndRetryingDeliveriesOfThatSchedule() {
        Schedule s = schedule(tenant, T0);
        Schedule other = schedule(tenant, T0);
        Delivery pending = delivery(s, T0.plusSeconds(10));
        Delivery inFlight = delivery(s, T0);
        Delivery untouched = delivery(other, T0.plusSeconds(10));
        List<Claim> claimed = store.queue().claimDue("node-a", Duration.ofMinutes(1), 10);
        assertThat(claimed).extracting(c -> c.delivery().id()).containsExactly(inFlight.id());

        assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().cancelPending(s.id(), T0))).isEqualTo(1);
        assertThat(status(pending)).isEqualTo(DeliveryStatus.CANCELLED);
        assertThat(status(inFlight)).isEqualTo(DeliveryStatus.DELIVERING);
        assertThat(status(untouched)).isEqualTo(DeliveryStatus.SCHEDULED);
        assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().hasPending(s.id()))).isTrue();
    }

    @Test
    void hasPendingAndEarliestPendingSeeOnlyUnfinishedDeliveries() {
        Schedule s = schedule(tenant, T0);
        assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().hasPending(s.id()))).isFalse();
        assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().earliestPending(s.id()))).isEmpty();
        delivery(s, T0.plusSeconds(20));
        delivery(s, T0.plusSeconds(5));
        assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().hasPending(s.id()))).isTrue();
        assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().earliestPending(s.id()))).contains(T0.plusSeconds(5));
        store.useTransaction(tx -> tx.deliveries().cancelPending(s.id(), T0));
        assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().hasPending(s.id()))).isFalse();
    }

    @Test
    void earliestPendingOfManySchedulesAgreesWithOneByOne() {
        Schedule a = schedule(tenant, T0);
        Schedule b = schedule(tenant, T0);
        Schedule none = schedule(tenant, T0);
        Schedule cancelled = schedule(tenant, T0);
        delivery(a, T0.plusSeconds(20));
        delivery(a, T0.plusSeconds(5));
        delivery(b, T0.plusSeconds(7));
        delivery(cancelled, T0.plusSeconds(1));
        store.useTransaction(tx -> tx.deliveries().cancelPending(cancelled.id(), T0));

        java.util.Map<String, java.time.Instant> many = store.inTransaction((StoreTx tx) ->
                tx.deliveries().earliestPending(List.of(a.id(), b.id(), none.id(), cancelled.id(), "sch_unknown")));

        assertThat(many).containsOnly(java.util.Map.entry(a.id(), T0.plusSeconds(5)), java.util.Map.entry(b.id(), T0.plusSeconds(7)));
        for (Schedule s : List.of(a, b, none, cancelled))
            assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().earliestPending(s.id()))).isEqualTo(java.util.Optional.ofNullable(many.get(s.id())));
        assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().earliestPending(List.<String>of()))).isEmpty();
    }

    @Test
    void replayRequeuesADeadDeliveryDueNowKeepingItsAttemptCount() {
        Schedule s = schedule(tenant, T0);
        Delivery d = delivery(s, T0);
        Claim c = store.queue().claimDue("node-a", Duration.ofMinutes(1), 1).get(0);
        store.queue().complete("node-a", List.of(new Outcome(d.id(), attempt(d, 1, 500), DeliveryStatus.DEAD, null, "HTTP 500")));
        assertThat(c.delivery().attemptCount()).isEqualTo(1);

        Instant later = clock.advance(Duration.ofMinutes(5));
        assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().requeueForReplay(tenant, d.id(), later))).isTrue();
        Delivery requeued = store.inTransaction((StoreTx tx) -> tx.deliveries().find(tenant, d.id())).orElseThrow();
        assertThat(requeued.status()).isEqualTo(DeliveryStatus.RETRYING);
        assertThat(requeued.nextAttemptAt()).isEqualTo(later);
        assertThat(requeued.attemptCount()).isEqualTo(1);
        assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().requeueForReplay(tenant, d.id(), later))).isFalse();

        Claim again = store.queue().claimDue("node-b", Duration.ofMinutes(1), 5).get(0);
        assertThat(again.delivery().id()).isEqualTo(d.id());
        assertThat(again.delivery().attemptCount()).isEqualTo(2);
        assertThat(again.delivery().idempotencyKey()).isEqualTo(d.idempotencyKey());
    }

    @Test
    void attemptsComeBackInNumberOrderWithTheirDetails() {
        Schedule s = schedule(tenant, T0);
        Delivery d = delivery(s, T0);
        store.queue().claimDue("n", Duration.ofMinutes(1), 1);
        Attempt first = new Attempt(ids.next("att"), d.id(), 1, T0, 120, null, "connection refused", null);
        store.queue().complete("n", List.of(new Outcome(d.id(), first, DeliveryStatus.RETRYING, T0, "connection refused")));
        store.queue().claimDue("n", Duration.ofMinutes(1), 1);
        Attempt second = new Attempt(ids.next("att"), d.id(), 2, T0.plusSeconds(1), 35, 200, null, "x".repeat(3000));
        store.queue().complete("n", List.of(new Outcome(d.id(), second, DeliveryStatus.SUCCEEDED, null, null)));

        List<Attempt> attempts = store.inTransaction((StoreTx tx) -> tx.deliveries().attempts(d.id()));
        assertThat(attempts).hasSize(2);
        assertThat(attempts.get(0)).isEqualTo(first);
        assertThat(attempts.get(1).statusCode()).isEqualTo(200);
        assertThat(attempts.get(1).responseBody()).hasSize(Attempt.RESPONSE_BODY_LIMIT);
        assertThat(status(d)).isEqualTo(DeliveryStatus.SUCCEEDED);
    }

    DeliveryStatus status(Delivery d) {
        return store.inTransaction((StoreTx tx) -> tx.deliveries().find(d.tenant(), d.id())).orElseThrow().status();
    }

    Attempt attempt(Delivery d, int number, Integer statusCode) {
        boolean ok = statusCode != null && statusCode / 100 == 2;
        return new Attempt(ids.next("att"), d.id(), number, clock.instant(), 10, statusCode, ok ? null : "HTTP " + statusCode, null);
    }
}

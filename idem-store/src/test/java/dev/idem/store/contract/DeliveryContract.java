package dev.idem.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Attempt;
import dev.idem.core.Delivery;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.Mode;
import dev.idem.core.Page;
import dev.idem.core.Schedule;
import dev.idem.core.Tenant;
import dev.idem.core.store.DeliveryQueue.Claim;
import dev.idem.core.store.DeliveryQueue.Outcome;
import dev.idem.core.store.StoreTx;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

abstract class DeliveryContract extends StoreTestBase {
    @Test
    void insertIfAbsentCreatesEachOccurrenceOnceUnderARace() throws Exception {
        Schedule s = schedule(tenant, T0);
        List<Boolean> inserted = Race.run(
                8,
                () -> store.inTransaction(
                        tx -> tx.deliveries().insertIfAbsent(Delivery.scheduled(ids.next("dlv"), s, T0, 1, T0))));
        assertThat(inserted).containsOnlyOnce(true);
        assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().list(tenant, s.id(), null, 10, null))
                        .data())
                .hasSize(1);
    }

    @Test
    void insertAllWritesManyInChunksAndSkipsOccurrencesThatExist() {
        Schedule s = schedule(tenant, T0);
        Delivery existing = delivery(s, T0);
        List<Delivery> many = new java.util.ArrayList<>();
        many.add(Delivery.scheduled(ids.next("dlv"), s, T0, 1, T0)); // same occurrence as existing: skipped
        for (int i = 1; i <= 2_500; i++) many.add(Delivery.scheduled(ids.next("dlv"), s, T0.plusSeconds(i), i + 1, T0));
        assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().insertAll(many)))
                .isEqualTo(2_500);
        assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().find(tenant, existing.id())))
                .contains(existing);
        assertThat(store.inTransaction((StoreTx tx) ->
                        tx.deliveries().find(tenant, many.get(2_500).id())))
                .contains(many.get(2_500));
        assertThat(store.inTransaction(
                        (StoreTx tx) -> tx.deliveries().find(tenant, many.get(0).id())))
                .isEmpty();
        assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().insertAll(List.of())))
                .isZero();
    }

    @Test
    void neverAttemptedDeliveriesCanBeMovedCancelledOrDeletedButNotOnceClaimed() {
        Schedule s = schedule(tenant, T0);
        Delivery claimed = delivery(s, T0);
        Delivery move = delivery(s, T0.plusSeconds(10));
        Delivery cancel = delivery(s, T0.plusSeconds(20));
        Delivery delete = delivery(s, T0.plusSeconds(30));
        store.queue().claimDue("n", Duration.ofMinutes(1), 10);
        assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().neverAttempted(s.id())))
                .extracting(Delivery::id)
                .containsExactly(move.id(), cancel.id(), delete.id());

        assertThat(store.inTransaction(
                        (StoreTx tx) -> tx.deliveries().reschedule(claimed.id(), T0.plusSeconds(99), T0)))
                .isFalse();
        assertThat(store.inTransaction(
                        (StoreTx tx) -> tx.deliveries().reschedule(move.id(), T0.plusSeconds(40), T0.plusSeconds(1))))
                .isTrue();
        Delivery moved = store.inTransaction((StoreTx tx) -> tx.deliveries().find(tenant, move.id()))
                .orElseThrow();
        assertThat(moved.scheduledFor()).isEqualTo(T0.plusSeconds(40));
        assertThat(moved.nextAttemptAt()).isEqualTo(T0.plusSeconds(40));
        assertThat(moved.idempotencyKey()).isEqualTo(move.idempotencyKey());

        assertThat(store.inTransaction(
                        (StoreTx tx) -> tx.deliveries().cancelNeverAttempted(List.of(cancel.id(), claimed.id()), T0)))
                .isEqualTo(1);
        assertThat(status(cancel)).isEqualTo(DeliveryStatus.CANCELLED);
        assertThat(status(claimed)).isEqualTo(DeliveryStatus.DELIVERING);
        assertThat(store.inTransaction(
                        (StoreTx tx) -> tx.deliveries().deleteNeverAttempted(List.of(delete.id(), claimed.id()))))
                .isEqualTo(1);
        assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().find(tenant, delete.id())))
                .isEmpty();
        assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().neverAttempted(s.id())))
                .extracting(Delivery::id)
                .containsExactly(move.id());
    }

    @Test
    void summariesGiveTheEarliestPendingAndTheLatestDueStatusOfManySchedulesInOneCall() {
        Schedule dead = schedule(tenant, T0);
        Schedule future = schedule(tenant, T0);
        Schedule mixed = schedule(tenant, T0);
        Schedule none = schedule(tenant, T0);
        Delivery d = delivery(dead, T0);
        delivery(future, T0.plusSeconds(60));
        Delivery older = delivery(mixed, T0.minusSeconds(10));
        Delivery latestDue = delivery(mixed, T0.minusSeconds(5));
        delivery(mixed, T0.plusSeconds(30));
        assertThat(store.queue().claimDue("n", Duration.ofMinutes(1), 10)).hasSize(3);
        store.queue()
                .complete(
                        "n",
                        List.of(
                                new Outcome(d.id(), attemptOf(d, 500), DeliveryStatus.DEAD, null, "HTTP 500"),
                                new Outcome(older.id(), attemptOf(older, 200), DeliveryStatus.SUCCEEDED, null, null),
                                new Outcome(
                                        latestDue.id(),
                                        attemptOf(latestDue, 500),
                                        DeliveryStatus.RETRYING,
                                        T0.plusSeconds(60),
                                        "HTTP 500")));

        var sums = store.inTransaction(
                (StoreTx tx) -> tx.deliveries().summaries(List.of(dead.id(), future.id(), mixed.id(), none.id()), T0));
        assertThat(sums).doesNotContainKey(none.id());
        assertThat(sums.get(dead.id()).lastDueStatus()).isEqualTo(DeliveryStatus.DEAD);
        assertThat(sums.get(dead.id()).earliestPending()).isNull();
        assertThat(sums.get(future.id()).earliestPending()).isEqualTo(T0.plusSeconds(60));
        assertThat(sums.get(future.id()).lastDueStatus())
                .as("nothing has come due")
                .isNull();
        assertThat(sums.get(mixed.id()).lastDueStatus()).isEqualTo(DeliveryStatus.RETRYING);
        assertThat(sums.get(mixed.id()).earliestPending()).isEqualTo(T0.minusSeconds(5));
    }

    private Attempt attemptOf(Delivery d, int status) {
        return new Attempt(ids.next("att"), d.id(), 1, T0, 5, status, status == 200 ? null : "HTTP " + status, null);
    }

    @Test
    void aDeliveryReadsBackExactlyAsWritten() {
        Schedule s = schedule(tenant, T0);
        Delivery d = delivery(s, T0.plusMillis(1));
        assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().find(tenant, d.id())))
                .contains(d);
    }

    @Test
    void anotherTenantsDeliveryIsInvisible() {
        Schedule s = schedule(tenant, T0);
        Delivery d = delivery(s, T0);
        for (Tenant t : List.of(new Tenant("prj_b", Mode.TEST), new Tenant(tenant.projectId(), Mode.LIVE))) {
            assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().find(t, d.id())))
                    .isEmpty();
            assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().list(t, null, null, 10, null))
                            .data())
                    .isEmpty();
            assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().list(t, s.id(), null, 10, null))
                            .data())
                    .isEmpty();
            assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().requeueForReplay(t, d.id(), T0)))
                    .isFalse();
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
        Page<Delivery> p2 = store.inTransaction((StoreTx tx) ->
                tx.deliveries().list(tenant, a.id(), null, 10, p1.data().get(1).id()));
        assertThat(p2.data())
                .extracting(Delivery::scheduledFor)
                .containsExactly(T0.plusSeconds(2), T0.plusSeconds(1), T0);
        assertThat(p2.hasMore()).isFalse();

        assertThat(store.inTransaction(
                                (StoreTx tx) -> tx.deliveries().list(tenant, null, DeliveryStatus.SCHEDULED, 100, null))
                        .data())
                .hasSize(10);
        assertThat(store.inTransaction(
                                (StoreTx tx) -> tx.deliveries().list(tenant, null, DeliveryStatus.DEAD, 100, null))
                        .data())
                .isEmpty();
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
        store.queue()
                .complete(
                        "n",
                        ds.stream()
                                .map(d -> new Outcome(
                                        d.id(),
                                        attempt(d, 1, 500),
                                        d == ds.get(1) ? DeliveryStatus.SUCCEEDED : DeliveryStatus.DEAD,
                                        null,
                                        "HTTP 500"))
                                .toList());
        Page<Delivery> dead =
                store.inTransaction((StoreTx tx) -> tx.deliveries().list(tenant, null, DeliveryStatus.DEAD, 2, null));
        assertThat(dead.data())
                .extracting(Delivery::id)
                .containsExactly(ds.get(3).id(), ds.get(2).id());
        assertThat(dead.hasMore()).isTrue();
        Page<Delivery> rest = store.inTransaction((StoreTx tx) -> tx.deliveries()
                .list(tenant, null, DeliveryStatus.DEAD, 2, ds.get(2).id()));
        assertThat(rest.data())
                .extracting(Delivery::id)
                .containsExactly(ds.get(0).id());
        assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries()
                                .list(new Tenant("prj_b", Mode.TEST), null, DeliveryStatus.DEAD, 10, null))
                        .data())
                .isEmpty();
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

        assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().cancelPending(s.id(), T0)))
                .isEqualTo(1);
        assertThat(status(pending)).isEqualTo(DeliveryStatus.CANCELLED);
        assertThat(status(inFlight)).isEqualTo(DeliveryStatus.DELIVERING);
        assertThat(status(untouched)).isEqualTo(DeliveryStatus.SCHEDULED);
        assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().hasPending(s.id())))
                .isTrue();
    }

    @Test
    void hasPendingAndEarliestPendingSeeOnlyUnfinishedDeliveries() {
        Schedule s = schedule(tenant, T0);
        assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().hasPending(s.id())))
                .isFalse();
        assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().earliestPending(s.id())))
                .isEmpty();
        delivery(s, T0.plusSeconds(20));
        delivery(s, T0.plusSeconds(5));
        assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().hasPending(s.id())))
                .isTrue();
        assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().earliestPending(s.id())))
                .contains(T0.plusSeconds(5));
        store.useTransaction(tx -> tx.deliveries().cancelPending(s.id(), T0));
        assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().hasPending(s.id())))
                .isFalse();
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

        assertThat(many)
                .containsOnly(
                        java.util.Map.entry(a.id(), T0.plusSeconds(5)), java.util.Map.entry(b.id(), T0.plusSeconds(7)));
        for (Schedule s : List.of(a, b, none, cancelled))
            assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().earliestPending(s.id())))
                    .isEqualTo(java.util.Optional.ofNullable(many.get(s.id())));
        assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().earliestPending(List.<String>of())))
                .isEmpty();
    }

    @Test
    void replayRequeuesADeadDeliveryDueNowKeepingItsAttemptCount() {
        Schedule s = schedule(tenant, T0);
        Delivery d = delivery(s, T0);
        Claim c = store.queue().claimDue("node-a", Duration.ofMinutes(1), 1).get(0);
        store.queue()
                .complete(
                        "node-a",
                        List.of(new Outcome(d.id(), attempt(d, 1, 500), DeliveryStatus.DEAD, null, "HTTP 500")));
        assertThat(c.delivery().attemptCount()).isEqualTo(1);

        Instant later = clock.advance(Duration.ofMinutes(5));
        assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().requeueForReplay(tenant, d.id(), later)))
                .isTrue();
        Delivery requeued = store.inTransaction((StoreTx tx) -> tx.deliveries().find(tenant, d.id()))
                .orElseThrow();
        assertThat(requeued.status()).isEqualTo(DeliveryStatus.RETRYING);
        assertThat(requeued.nextAttemptAt()).isEqualTo(later);
        assertThat(requeued.attemptCount()).isEqualTo(1);
        assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().requeueForReplay(tenant, d.id(), later)))
                .isFalse();

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
        store.queue()
                .complete("n", List.of(new Outcome(d.id(), first, DeliveryStatus.RETRYING, T0, "connection refused")));
        store.queue().claimDue("n", Duration.ofMinutes(1), 1);
        Attempt second = new Attempt(ids.next("att"), d.id(), 2, T0.plusSeconds(1), 35, 200, null, "x".repeat(3000));
        store.queue().complete("n", List.of(new Outcome(d.id(), second, DeliveryStatus.SUCCEEDED, null, null)));

        List<Attempt> attempts =
                store.inTransaction((StoreTx tx) -> tx.deliveries().attempts(d.id()));
        assertThat(attempts).hasSize(2);
        assertThat(attempts.get(0)).isEqualTo(first);
        assertThat(attempts.get(1).statusCode()).isEqualTo(200);
        assertThat(attempts.get(1).responseBody()).hasSize(Attempt.RESPONSE_BODY_LIMIT);
        assertThat(status(d)).isEqualTo(DeliveryStatus.SUCCEEDED);
    }

    DeliveryStatus status(Delivery d) {
        return store.inTransaction((StoreTx tx) -> tx.deliveries().find(d.tenant(), d.id()))
                .orElseThrow()
                .status();
    }

    Attempt attempt(Delivery d, int number, Integer statusCode) {
        boolean ok = statusCode != null && statusCode / 100 == 2;
        return new Attempt(
                ids.next("att"),
                d.id(),
                number,
                clock.instant(),
                10,
                statusCode,
                ok ? null : "HTTP " + statusCode,
                null);
    }

    @Test
    void aDeliveryReadsBackItsIdempotencyKeyWhetherItIsItsOwnIdOrTheSchedulesKey() {
        Delivery own = delivery(schedule(tenant, T0), T0);
        assertThat(own.idempotencyKey()).isEqualTo(own.id());
        Schedule keyed = newSchedule(tenant, T0);
        Schedule withKey = keyed.withDefinition(
                withKeyAndAutoPause(
                        keyed.definition(), "order-42", keyed.definition().autoPauseAfter()),
                T0);
        store.useTransaction(tx -> tx.schedules().insert(withKey));
        Delivery theirs = delivery(withKey, T0);
        assertThat(theirs.idempotencyKey()).isEqualTo("order-42");
        for (Delivery x : List.of(own, theirs))
            assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().find(tenant, x.id()))
                            .orElseThrow()
                            .idempotencyKey())
                    .isEqualTo(x.idempotencyKey());
    }
}

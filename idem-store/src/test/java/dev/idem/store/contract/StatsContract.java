package dev.idem.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Attempt;
import dev.idem.core.Delivery;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.Mode;
import dev.idem.core.Schedule;
import dev.idem.core.ScheduleStatus;
import dev.idem.core.Tenant;
import dev.idem.core.store.DeliveryQueue.Outcome;
import dev.idem.core.store.StatsRepository;
import dev.idem.core.store.StatsRepository.DeliveryStats;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The dashboard's counters: per tenant, over a time window, on every database. */
abstract class StatsContract extends StoreTestBase {
    final Tenant other = new Tenant("prj_b", Mode.TEST);
    final Tenant live = new Tenant(tenant.projectId(), Mode.LIVE);

    DeliveryStats stats(Tenant t, Duration window) {
        Instant now = clock.instant();
        return store.inReadTransaction(tx -> tx.stats().deliveryStats(t, now.minus(window), now));
    }

    Outcome outcome(Delivery d, DeliveryStatus status, Integer code) {
        return outcome(d, 1, status, code);
    }

    /** The outcome of attempt {@code number} (the claimed delivery's attempt count). */
    Outcome outcome(Delivery d, int number, DeliveryStatus status, Integer code) {
        Attempt a = new Attempt(
                ids.next("att"),
                d.id(),
                number,
                clock.instant(),
                10,
                code,
                status == DeliveryStatus.SUCCEEDED ? null : "HTTP " + code,
                null);
        Instant next = status == DeliveryStatus.RETRYING ? clock.instant().plusSeconds(60) : null;
        return new Outcome(d.id(), a, status, next, a.error());
    }

    @Test
    void countsOnlyTheTenantsOwnFinishedDeliveriesWithinTheWindowAndItsDeadLetterQueue() {
        Schedule mine = schedule(tenant, T0);
        Schedule theirs = schedule(other, T0);
        List<Delivery> d = List.of(
                delivery(mine, T0),
                delivery(mine, T0.minusMillis(1)),
                delivery(mine, T0.minusMillis(2)),
                delivery(mine, T0.minusMillis(3)));
        Delivery foreignDead = delivery(theirs, T0.minusMillis(4));
        Delivery foreignOk = delivery(theirs, T0.minusMillis(5));
        assertThat(store.queue().claimDue("n", Duration.ofMinutes(1), 10)).hasSize(6);
        clock.advance(Duration.ofSeconds(1));
        store.queue()
                .complete(
                        "n",
                        List.of(
                                outcome(d.get(0), DeliveryStatus.SUCCEEDED, 200),
                                outcome(d.get(1), DeliveryStatus.SUCCEEDED, 204),
                                outcome(d.get(2), DeliveryStatus.DEAD, 500),
                                outcome(d.get(3), DeliveryStatus.RETRYING, 503),
                                outcome(foreignDead, DeliveryStatus.DEAD, 500),
                                outcome(foreignOk, DeliveryStatus.SUCCEEDED, 200)));

        assertThat(stats(tenant, Duration.ofSeconds(60))).isEqualTo(new DeliveryStats(2, 1, 1, 1, Optional.empty(), 0));
        assertThat(stats(other, Duration.ofSeconds(60))).isEqualTo(new DeliveryStats(1, 1, 1, 0, Optional.empty(), 0));
        assertThat(stats(live, Duration.ofSeconds(60))).isEqualTo(new DeliveryStats(0, 0, 0, 0, Optional.empty(), 0));

        // past the window the rates fall to zero; the dead-letter queue and
        // the retry stay, the retry now due and waiting
        clock.advance(Duration.ofSeconds(61));
        assertThat(stats(tenant, Duration.ofSeconds(60)))
                .isEqualTo(new DeliveryStats(0, 0, 1, 1, Optional.of(T0.plusSeconds(61)), 1));
    }

    @Test
    void theWindowCountsAreKeptPerSecondApartFromTheDeliveriesAndPrunedOnTheirOwn() {
        Schedule mine = schedule(tenant, T0);
        Delivery ok = delivery(mine, T0);
        Delivery dead = delivery(mine, T0.minusMillis(1));
        assertThat(store.queue().claimDue("n", Duration.ofMinutes(1), 10)).hasSize(2);
        store.queue()
                .complete(
                        "n",
                        List.of(outcome(ok, DeliveryStatus.SUCCEEDED, 200), outcome(dead, DeliveryStatus.DEAD, 500)));
        clock.advance(Duration.ofSeconds(30));
        // the rows themselves gone (as if past retention), the minute's counts stay: the window reads only them
        assertThat(store.queue().pruneFinished(clock.instant(), 10)).isEqualTo(2);
        assertThat(stats(tenant, Duration.ofSeconds(60))).isEqualTo(new DeliveryStats(1, 1, 0, 0, Optional.empty(), 0));

        assertThat(store.queue().pruneFinishCounts(T0, 10)).isZero();
        assertThat(store.queue().pruneFinishCounts(T0.plusSeconds(1), 10)).isEqualTo(1);
        assertThat(stats(tenant, Duration.ofSeconds(60))).isEqualTo(new DeliveryStats(0, 0, 0, 0, Optional.empty(), 0));
    }

    @Test
    void theOldestDueDeliveryIsTheEarliestTheDispatcherCouldClaimAndHasNotClaimed() {
        Schedule mine = schedule(tenant, T0);
        Schedule paused = schedule(tenant, T0);
        store.useTransaction(tx -> tx.schedules().update(paused.withStatus(ScheduleStatus.PAUSED, null, T0)));
        Schedule theirs = schedule(other, T0);
        delivery(mine, T0.plusSeconds(10)); // not due yet
        delivery(mine, T0.minusSeconds(30));
        delivery(mine, T0.minusSeconds(20));
        delivery(paused, T0.minusSeconds(100)); // held by the pause: no lag
        delivery(theirs, T0.minusSeconds(200));

        assertThat(stats(tenant, Duration.ofSeconds(60)).oldestDue()).contains(T0.minusSeconds(30));
        assertThat(stats(other, Duration.ofSeconds(60)).oldestDue()).contains(T0.minusSeconds(200));
        assertThat(stats(live, Duration.ofSeconds(60)).oldestDue()).isEmpty();
        assertThat(stats(tenant, Duration.ofSeconds(60)).queued())
                .as("due and claimable: not the future one, not the paused one")
                .isEqualTo(2);
        assertThat(stats(other, Duration.ofSeconds(60)).queued()).isEqualTo(1);
        assertThat(stats(live, Duration.ofSeconds(60)).queued()).isZero();

        // claimed (in flight) is no longer waiting
        assertThat(store.queue().claimDue("n", Duration.ofMinutes(1), 2)).hasSize(2);
        assertThat(stats(tenant, Duration.ofSeconds(60)).oldestDue()).contains(T0.minusSeconds(20));
        assertThat(stats(other, Duration.ofSeconds(60)).oldestDue()).isEmpty();
        assertThat(stats(tenant, Duration.ofSeconds(60)).queued()).isEqualTo(1);
        assertThat(stats(other, Duration.ofSeconds(60)).queued()).isZero();
    }

    @Test
    void theDeadLetterAndRetryCountsFollowReplaysAndThePruner() {
        Schedule mine = schedule(tenant, T0);
        Delivery first = delivery(mine, T0);
        Delivery second = delivery(mine, T0.minusMillis(1));
        Delivery failing = delivery(mine, T0.minusMillis(2));
        assertThat(store.queue().claimDue("n", Duration.ofMinutes(1), 10)).hasSize(3);
        store.queue()
                .complete(
                        "n",
                        List.of(
                                outcome(first, DeliveryStatus.DEAD, 500),
                                outcome(second, DeliveryStatus.DEAD, 500),
                                outcome(failing, DeliveryStatus.RETRYING, 503)));
        assertThat(stats(tenant, Duration.ofSeconds(60))).isEqualTo(new DeliveryStats(0, 2, 2, 1, Optional.empty(), 0));

        // a replay leaves the dead-letter queue and waits, due now, as a retry
        boolean requeued =
                store.inTransaction(tx -> tx.deliveries().requeueForReplay(tenant, first.id(), clock.instant()));
        assertThat(requeued).isTrue();
        DeliveryStats replayed = stats(tenant, Duration.ofSeconds(60));
        assertThat(replayed.dead()).isEqualTo(1);
        assertThat(replayed.retrying()).isEqualTo(2);
        assertThat(replayed.queued()).isEqualTo(1);

        // the replay succeeds (and counts in the window again); then the finished rows age out and the pruner takes
        // them
        var replay = store.queue().claimDue("n", Duration.ofMinutes(1), 10);
        assertThat(replay).hasSize(1);
        Delivery again = replay.get(0).delivery();
        store.queue().complete("n", List.of(outcome(again, again.attemptCount(), DeliveryStatus.SUCCEEDED, 200)));
        assertThat(stats(tenant, Duration.ofSeconds(60))).isEqualTo(new DeliveryStats(1, 2, 1, 1, Optional.empty(), 0));
        clock.advance(Duration.ofSeconds(1));
        store.queue().pruneFinished(clock.instant(), 10);
        assertThat(stats(tenant, Duration.ofSeconds(60))).isEqualTo(new DeliveryStats(1, 2, 0, 1, Optional.empty(), 0));
    }

    @Test
    void theDepthAtTheLimitCountsNoPausedRowAndNoRowOfAnotherTenantOrModeDueBeforeTheTenantsOwn() {
        // exactly the limit of claimable rows: one more row counted, of any kind, would read as one past the limit
        int limit = StatsRepository.COUNT_LIMIT;
        Schedule mine = schedule(tenant, T0);
        Schedule paused = schedule(tenant, T0);
        store.useTransaction(tx -> tx.schedules().update(paused.withStatus(ScheduleStatus.PAUSED, null, T0)));
        Schedule theirs = schedule(other, T0);
        Schedule otherMode = schedule(live, T0);
        Instant earlier = T0.minusSeconds(3600);
        List<Delivery> due = new java.util.ArrayList<>();
        for (int i = 0; i < limit; i++)
            due.add(Delivery.scheduled(ids.next("dlv"), mine, T0.minusMillis(i), i + 1, T0));
        for (Schedule s : List.of(paused, theirs, otherMode))
            for (int i = 0; i < 3; i++)
                due.add(Delivery.scheduled(ids.next("dlv"), s, earlier.minusMillis(i), i + 1, T0));
        int inserted = store.inTransaction(tx -> tx.deliveries().insertAll(due));
        assertThat(inserted).isEqualTo(limit + 9);

        DeliveryStats mineNow = stats(tenant, Duration.ofSeconds(60));
        assertThat(mineNow.queued()).isEqualTo(limit);
        assertThat(mineNow.oldestDue()).contains(T0.minusMillis(limit - 1));
        assertThat(stats(other, Duration.ofSeconds(60)))
                .isEqualTo(new DeliveryStats(0, 0, 0, 0, Optional.of(earlier.minusMillis(2)), 3));
        assertThat(stats(live, Duration.ofSeconds(60)))
                .isEqualTo(new DeliveryStats(0, 0, 0, 0, Optional.of(earlier.minusMillis(2)), 3));

        // resumed, the held rows are the tenant's earliest claimable ones and count again
        store.useTransaction(tx -> tx.schedules().update(paused.withStatus(ScheduleStatus.ACTIVE, null, T0)));
        DeliveryStats resumed = stats(tenant, Duration.ofSeconds(60));
        assertThat(resumed.queued()).isEqualTo(limit + 1);
        assertThat(resumed.oldestDue()).contains(earlier.minusMillis(2));
    }

    @Test
    void countsOfDeliveriesInAStateStopOnePastTheLimit() {
        // the queue's depth shows it; the dead-letter and retry counts go through the same bounded count, and making
        // ten thousand deliveries dead here would cost this test seconds
        int over = StatsRepository.COUNT_LIMIT + 5;
        Schedule mine = schedule(tenant, T0);
        List<Delivery> due = new java.util.ArrayList<>();
        for (int i = 0; i < over; i++) due.add(Delivery.scheduled(ids.next("dlv"), mine, T0.minusMillis(i), i + 1, T0));
        int inserted = store.inTransaction(tx -> tx.deliveries().insertAll(due));
        assertThat(inserted).isEqualTo(over);
        DeliveryStats s = stats(tenant, Duration.ofSeconds(60));
        assertThat(s.queued()).isEqualTo(StatsRepository.COUNT_LIMIT + 1);
        assertThat(s.oldestDue()).contains(T0.minusMillis(over - 1));

        // exactly at the limit the count is exact
        assertThat(store.queue().claimDue("n", Duration.ofMinutes(1), 5)).hasSize(5);
        assertThat(stats(tenant, Duration.ofSeconds(60)).queued()).isEqualTo(StatsRepository.COUNT_LIMIT);
    }
}

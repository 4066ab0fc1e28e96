package dev.idem.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Attempt;
import dev.idem.core.Delivery;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.Origin;
import dev.idem.core.Schedule;
import dev.idem.core.ScheduleStatus;
import dev.idem.core.fanout.Message;
import dev.idem.core.store.DeliveryQueue;
import dev.idem.core.store.DeliveryQueue.Outcome;
import dev.idem.core.store.StoreTx;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * What the pruner deletes and what it keeps: finished deliveries past the cutoff, then settled (completed or deleted)
 * schedules and messages once none of their deliveries is left, in batches, oldest first; never a schedule that is
 * active or paused, never anything changed after the cutoff.
 */
abstract class RetentionContract extends StoreTestBase {
    static final Duration RETENTION = Duration.ofDays(30);
    static final Duration LEASE = Duration.ofSeconds(30);

    DeliveryQueue queue() {
        return store.queue();
    }

    Instant cutoff() {
        return clock.instant().minus(RETENTION);
    }

    @Test
    void aCompletedOneShotIsPrunedOnlyAfterItsLastDeliveryAndNotBeforeTheCutoff() {
        Schedule s = schedule(tenant, clock.instant());
        Delivery d = completeWith(s, DeliveryStatus.SUCCEEDED);

        clock.advance(RETENTION.minusHours(1));
        assertThat(pruneAll()).isZero();
        assertThat(findSchedule(s)).isPresent();
        assertThat(findDelivery(d)).isPresent();

        clock.advance(Duration.ofHours(2));
        assertThat(queue().pruneSettledSchedules(cutoff(), 10))
                .as("its delivery is still there")
                .isZero();
        assertThat(findSchedule(s)).isPresent();
        assertThat(queue().pruneFinished(cutoff(), 10)).isEqualTo(1);
        assertThat(queue().pruneSettledSchedules(cutoff(), 10)).isEqualTo(1);
        assertThat(findSchedule(s)).isEmpty();
        assertThat(findDelivery(d)).isEmpty();
    }

    @Test
    void aCompletedScheduleWithADeadDeliveryStillKeptStaysReplayable() {
        Schedule s = schedule(tenant, clock.instant());
        completeWith(s, DeliveryStatus.DEAD);
        clock.advance(RETENTION.plusDays(1));
        // the delivery outlives the cutoff only if it changed since (a replay); as long as it is there, so is the
        // schedule
        assertThat(queue().pruneSettledSchedules(cutoff(), 10)).isZero();
        assertThat(findSchedule(s)).isPresent();
    }

    @Test
    void anActiveOrPausedScheduleIsNeverPrunedWhateverItsAgeAndItsOldDeliveriesAre() {
        Schedule recurring = schedule(tenant, clock.instant());
        Delivery old = delivery(recurring, clock.instant());
        finish(old, DeliveryStatus.SUCCEEDED);
        Schedule paused = schedule(tenant, clock.instant());
        settle(paused, ScheduleStatus.PAUSED);

        clock.advance(Duration.ofDays(1000));
        assertThat(pruneAll()).isEqualTo(1);
        assertThat(findDelivery(old)).isEmpty();
        assertThat(findSchedule(recurring)).isPresent();
        assertThat(findSchedule(paused)).isPresent();
    }

    @Test
    void aDeletedScheduleIsPrunedAfterTheCutoffFromItsDeletion() {
        Schedule s = schedule(tenant, clock.instant());
        clock.advance(Duration.ofDays(100));
        settle(s, ScheduleStatus.DELETED);

        clock.advance(RETENTION.minusMinutes(1));
        assertThat(pruneAll()).isZero();
        assertThat(findSchedule(s)).isPresent();
        clock.advance(Duration.ofMinutes(2));
        assertThat(pruneAll()).isEqualTo(1);
        assertThat(findSchedule(s)).isEmpty();
    }

    @Test
    void internalOneShotsArePrunedLikeAnyOther() {
        Schedule s = store.inTransaction((StoreTx tx) -> {
            Schedule internal = newSchedule(tenant, clock.instant()).withOrigin(Origin.source("src_1"));
            tx.schedules().insert(internal);
            return internal;
        });
        completeWith(s, DeliveryStatus.SUCCEEDED);
        clock.advance(RETENTION.plusSeconds(1));
        assertThat(pruneAll()).isEqualTo(2);
        assertThat(findSchedule(s)).isEmpty();
    }

    @Test
    void settledSchedulesArePrunedInBatchesOldestFirst() {
        Schedule a = schedule(tenant, clock.instant());
        Schedule b = schedule(tenant, clock.instant());
        Schedule c = schedule(tenant, clock.instant());
        settle(a, ScheduleStatus.COMPLETED);
        clock.advance(Duration.ofMinutes(1));
        settle(c, ScheduleStatus.DELETED);
        clock.advance(Duration.ofMinutes(1));
        settle(b, ScheduleStatus.COMPLETED);
        clock.advance(RETENTION.plusDays(1));

        assertThat(queue().pruneSettledSchedules(cutoff(), 2)).isEqualTo(2);
        assertThat(findSchedule(a)).isEmpty();
        assertThat(findSchedule(c)).isEmpty();
        assertThat(findSchedule(b)).isPresent();
        assertThat(queue().pruneSettledSchedules(cutoff(), 2)).isEqualTo(1);
        assertThat(queue().pruneSettledSchedules(cutoff(), 2)).isZero();
    }

    @Test
    void aMessageIsPrunedOnceItsDeliveriesAreGoneAndAYoungerOneStays() {
        Message old = message();
        Schedule carrier = store.inTransaction((StoreTx tx) -> {
            Schedule internal = newSchedule(tenant, clock.instant()).withOrigin(Origin.message());
            tx.schedules().insert(internal);
            return internal;
        });
        Delivery d = Delivery.scheduled(ids.next("dlv"), carrier, clock.instant(), 1, clock.instant())
                .forMessage(old.id(), "ep_1", old.id() + "/ep_1");
        store.useTransaction(tx -> tx.deliveries().insertIfAbsent(d));
        finish(d, DeliveryStatus.SUCCEEDED);
        settle(carrier, ScheduleStatus.COMPLETED);
        clock.advance(Duration.ofDays(10));
        Message younger = message();

        clock.advance(RETENTION.minusDays(10).plusSeconds(1));
        assertThat(queue().pruneMessages(cutoff(), 10))
                .as("its delivery is still there")
                .isZero();
        assertThat(findMessage(old)).isPresent();
        assertThat(pruneAll()).as("delivery, carrier schedule, message").isEqualTo(3);
        assertThat(findMessage(old)).isEmpty();
        assertThat(findSchedule(carrier)).isEmpty();
        assertThat(findMessage(younger)).isPresent();
    }

    /** One pass of each pruning statement in the pruner's order; returns the rows deleted. */
    int pruneAll() {
        return queue().pruneFinished(cutoff(), 100)
                + queue().pruneSettledSchedules(cutoff(), 100)
                + queue().pruneMessages(cutoff(), 100);
    }

    Message message() {
        Message m = new Message(
                ids.next("msg"), tenant, "invoice.paid", null, "{}", null, null, null, null, 1, clock.instant());
        store.useTransaction(tx -> tx.messages().insert(m));
        return m;
    }

    /** Gives one-shot {@code s} a delivery that finishes now in {@code status}, and completes {@code s}. */
    Delivery completeWith(Schedule s, DeliveryStatus status) {
        Delivery d = delivery(s, clock.instant());
        finish(d, status);
        settle(s, ScheduleStatus.COMPLETED);
        return d;
    }

    /** Claims {@code d} and records its one attempt ending in {@code status}, now. */
    void finish(Delivery d, DeliveryStatus status) {
        List<DeliveryQueue.Claim> claims = queue().claimDue("n", LEASE, 10);
        assertThat(claims).extracting(c -> c.delivery().id()).contains(d.id());
        boolean ok = status == DeliveryStatus.SUCCEEDED;
        Attempt attempt = new Attempt(
                ids.next("att"), d.id(), 1, clock.instant(), 10, ok ? 200 : 500, ok ? null : "HTTP 500", null);
        queue().complete("n", List.of(new Outcome(d.id(), attempt, status, null, ok ? null : "HTTP 500")));
    }

    void settle(Schedule s, ScheduleStatus status) {
        store.useTransaction(tx -> tx.schedules()
                .update(tx.schedules()
                        .find(s.tenant(), s.id())
                        .orElseThrow()
                        .withStatus(status, null, clock.instant())));
    }

    Optional<Schedule> findSchedule(Schedule s) {
        return store.inTransaction((StoreTx tx) -> tx.schedules().find(s.tenant(), s.id()));
    }

    Optional<Delivery> findDelivery(Delivery d) {
        return store.inTransaction((StoreTx tx) -> tx.deliveries().find(d.tenant(), d.id()));
    }

    Optional<Message> findMessage(Message m) {
        return store.inTransaction((StoreTx tx) -> tx.messages().find(m.tenant(), m.id()));
    }
}

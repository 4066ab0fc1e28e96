package dev.idem.core.outcome;

import static dev.idem.core.outcome.Fixtures.dead;
import static dev.idem.core.outcome.Fixtures.retrying;
import static dev.idem.core.outcome.Fixtures.succeeded;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Attempt;
import dev.idem.core.ScheduleStatus;
import dev.idem.core.store.DeliveryQueue;
import dev.idem.core.store.DeliveryQueue.Outcome;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OutcomeBatchTest {
    private static final Instant AT = Instant.parse("2026-03-10T17:00:00Z");

    private static OutcomeBatch.Stored active(int failures, int autoPauseAfter) {
        return new OutcomeBatch.Stored(failures, autoPauseAfter, ScheduleStatus.ACTIVE, false);
    }

    @Test
    void eachDeliveryGetsTheFirstOutcomeGivenForItInDeliveryIdOrder() {
        Outcome b = succeeded("dlv_b", 1, AT);
        Outcome a = dead("dlv_a", 2, AT);
        Outcome bAgain = dead("dlv_b", 1, AT);
        assertThat(OutcomeBatch.toApply(List.of(b, a, bAgain))).containsExactly(a, b);
    }

    @Test
    void everyAttemptIsKeptAndThoseNotAppliedSayTheyAreStale() {
        Outcome applied = succeeded("dlv_a", 1, AT);
        Outcome late = retrying("dlv_b", 1, AT);
        List<Attempt> kept = OutcomeBatch.applied(List.of(applied, late), Map.of("dlv_a", "sch_1"))
                .attempts();
        assertThat(kept).hasSize(2);
        assertThat(kept.get(0)).isEqualTo(applied.attempt());
        assertThat(kept.get(1).error()).isEqualTo(OutcomeBatch.STALE + "; HTTP 500");
        assertThat(kept.get(1).id()).isEqualTo(late.attempt().id());
    }

    @Test
    void aBatchWithNothingAppliedChangesNoSchedule() {
        OutcomeBatch batch = OutcomeBatch.applied(List.of(dead("dlv_a", 3, AT)), Map.of());
        assertThat(batch.nothingApplied()).isTrue();
        assertThat(batch.schedules()).isEmpty();
        assertThat(batch.effects(Map.of()).completed()).isEqualTo(DeliveryQueue.Completed.NONE);
    }

    @Test
    void onlySchedulesWithAFailureMustBeReadAndOnlyFinalDeliveriesMayComplete() {
        OutcomeBatch batch = OutcomeBatch.applied(
                List.of(succeeded("dlv_1", 1, AT), retrying("dlv_2", 1, AT), dead("dlv_3", 3, AT)),
                Map.of("dlv_1", "sch_ok", "dlv_2", "sch_retry", "dlv_3", "sch_dead"));
        assertThat(batch.schedules()).containsExactlyInAnyOrder("sch_ok", "sch_retry", "sch_dead");
        assertThat(batch.withFailures()).containsExactlyInAnyOrder("sch_retry", "sch_dead");
        assertThat(batch.finalIn()).containsExactlyInAnyOrder("sch_ok", "sch_dead");
    }

    @Test
    void failuresAddToTheCounterAndPauseTheScheduleAtItsThreshold() {
        OutcomeBatch batch = OutcomeBatch.applied(
                List.of(retrying("dlv_1", 1, AT), dead("dlv_2", 3, AT)), Map.of("dlv_1", "sch_1", "dlv_2", "sch_1"));
        OutcomeBatch.Effects e = batch.effects(Map.of("sch_1", active(3, 5)));
        assertThat(e.counters()).containsExactly(new OutcomeBatch.CounterChange("sch_1", 5, true));
        assertThat(e.completed().autoPaused()).containsExactly(new DeliveryQueue.AutoPaused("sch_1", 5));
        assertThat(e.completed().dead()).containsExactly(new DeliveryQueue.Dead("dlv_2", "sch_1", 3, "HTTP 500"));
        assertThat(e.completed().applied()).containsExactly("dlv_1", "dlv_2");
    }

    @Test
    void noThresholdNeverPauses() {
        OutcomeBatch batch = OutcomeBatch.applied(List.of(dead("dlv_1", 3, AT)), Map.of("dlv_1", "sch_1"));
        OutcomeBatch.Effects e = batch.effects(Map.of("sch_1", active(100, 0)));
        assertThat(e.counters()).containsExactly(new OutcomeBatch.CounterChange("sch_1", 101, false));
        assertThat(e.completed().autoPaused()).isEmpty();
    }

    @Test
    void aScheduleAlreadyPausedCountsItsFailuresButDoesNotPauseAgain() {
        OutcomeBatch batch = OutcomeBatch.applied(List.of(retrying("dlv_1", 1, AT)), Map.of("dlv_1", "sch_1"));
        OutcomeBatch.Effects e =
                batch.effects(Map.of("sch_1", new OutcomeBatch.Stored(4, 5, ScheduleStatus.PAUSED, false)));
        assertThat(e.counters()).containsExactly(new OutcomeBatch.CounterChange("sch_1", 5, false));
        assertThat(e.completed().autoPaused()).isEmpty();
    }

    @Test
    void aCompletedOneShotStillPausesItself() {
        OutcomeBatch batch = OutcomeBatch.applied(List.of(retrying("dlv_1", 1, AT)), Map.of("dlv_1", "sch_1"));
        OutcomeBatch.Effects e =
                batch.effects(Map.of("sch_1", new OutcomeBatch.Stored(0, 1, ScheduleStatus.COMPLETED, true)));
        assertThat(e.counters()).containsExactly(new OutcomeBatch.CounterChange("sch_1", 1, true));
    }

    @Test
    void aSuccessResetsTheCounterAndAScheduleAlreadyAtZeroIsNotWritten() {
        OutcomeBatch batch = OutcomeBatch.applied(
                List.of(succeeded("dlv_1", 1, AT), succeeded("dlv_2", 1, AT)),
                Map.of("dlv_1", "sch_1", "dlv_2", "sch_2"));
        OutcomeBatch.Effects e = batch.effects(Map.of("sch_1", active(7, 10), "sch_2", active(0, 10)));
        assertThat(e.counters()).containsExactly(new OutcomeBatch.CounterChange("sch_1", 0, false));
    }

    @Test
    void aScheduleNotReadIsNeitherChangedNorCompleted() {
        OutcomeBatch batch = OutcomeBatch.applied(List.of(dead("dlv_1", 3, AT)), Map.of("dlv_1", "sch_1"));
        OutcomeBatch.Effects e = batch.effects(Map.of());
        assertThat(e.counters()).isEmpty();
        assertThat(e.mayComplete()).isEmpty();
        assertThat(e.completed().dead()).hasSize(1);
    }

    @Test
    void aScheduleMayCompleteWhenADeliveryBecameFinalItsRuleEndedAndItIsActiveOrPaused() {
        OutcomeBatch batch = OutcomeBatch.applied(
                List.of(
                        succeeded("dlv_1", 1, AT),
                        succeeded("dlv_2", 1, AT),
                        succeeded("dlv_3", 1, AT),
                        succeeded("dlv_4", 1, AT),
                        retrying("dlv_5", 1, AT)),
                Map.of(
                        "dlv_1", "sch_ended",
                        "dlv_2", "sch_paused",
                        "dlv_3", "sch_rule_goes_on",
                        "dlv_4", "sch_deleted",
                        "dlv_5", "sch_retrying"));
        OutcomeBatch.Effects e = batch.effects(Map.of(
                "sch_ended", new OutcomeBatch.Stored(0, 0, ScheduleStatus.ACTIVE, true),
                "sch_paused", new OutcomeBatch.Stored(0, 0, ScheduleStatus.PAUSED, true),
                "sch_rule_goes_on", new OutcomeBatch.Stored(0, 0, ScheduleStatus.ACTIVE, false),
                "sch_deleted", new OutcomeBatch.Stored(0, 0, ScheduleStatus.DELETED, true),
                "sch_retrying", new OutcomeBatch.Stored(0, 0, ScheduleStatus.ACTIVE, true)));
        assertThat(e.mayComplete()).containsExactlyInAnyOrder("sch_ended", "sch_paused");
    }

    @Test
    void aDeliveryGivenTwoOutcomesIsReportedOnceWithTheFirst() {
        OutcomeBatch batch = OutcomeBatch.applied(
                List.of(dead("dlv_1", 3, AT), succeeded("dlv_1", 3, AT)), Map.of("dlv_1", "sch_1"));
        OutcomeBatch.Effects e = batch.effects(Map.of("sch_1", active(0, 0)));
        assertThat(e.completed().applied()).containsExactly("dlv_1");
        assertThat(e.completed().dead())
                .extracting(DeliveryQueue.Dead::deliveryId)
                .containsExactly("dlv_1");
    }
}

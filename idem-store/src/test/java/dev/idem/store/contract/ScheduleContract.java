package dev.idem.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.CatchUp;
import dev.idem.core.HeaderProfile;
import dev.idem.core.Materialisation;
import dev.idem.core.Mode;
import dev.idem.core.Page;
import dev.idem.core.RetryPolicy;
import dev.idem.core.Schedule;
import dev.idem.core.ScheduleDefinition;
import dev.idem.core.ScheduleStatus;
import dev.idem.core.Tenant;
import dev.idem.core.Timing;
import dev.idem.core.recurrence.RecurrenceSpec;
import dev.idem.core.store.ScheduleRepository.CursorMove;
import dev.idem.core.store.StoreTx;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

abstract class ScheduleContract extends StoreTestBase {
    @Test
    void aScheduleReadsBackExactlyAsWritten() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("X-Zeta", "1");
        headers.put("X-Alpha", "2");
        ScheduleDefinition d = ScheduleDefinition.builder(
                        "https://example.com/a?b=c", new Timing.Once(T0.plusMillis(1234)))
                .body("raw body ü")
                .contentType("text/csv")
                .headers(headers)
                .eventType("order.paid")
                .idempotencyKey("my-key")
                .dedupId("dedup-1")
                .retry(new RetryPolicy(3, Duration.ofMillis(1500), Duration.ofMinutes(7), Duration.ofHours(2)))
                .timeout(Duration.ofSeconds(12))
                .autoPauseAfter(0)
                .headerProfile(HeaderProfile.SCHEDSTACK)
                .metadataJson("{\"k\":[1,2]}")
                .build();
        Schedule s = new Schedule(
                ids.next("sch"),
                tenant,
                ScheduleStatus.PAUSED,
                d,
                T0.plusMillis(1234),
                3,
                Schedule.PAUSED_BY_USER,
                7,
                T0,
                T0.plusSeconds(1));
        store.useTransaction(tx -> tx.schedules().insert(s));

        Schedule back = store.inTransaction((StoreTx tx) -> tx.schedules().find(tenant, s.id()))
                .orElseThrow();
        assertThat(back).isEqualTo(s);
        assertThat(back.definition().headers().keySet()).containsExactly("X-Zeta", "X-Alpha");
    }

    @Test
    void aRecurringScheduleReadsBackAndMaterialisesOccurrenceAfterOccurrence() {
        Timing rule = new Timing.Recurring(
                RecurrenceSpec.rrule(
                        "FREQ=HOURLY;INTERVAL=2", ZoneId.of("Europe/Paris"), LocalDateTime.parse("2030-01-01T01:00")),
                CatchUp.LATEST);
        Schedule base = newSchedule(tenant, T0);
        Instant first = rule.first(T0).orElseThrow();
        Schedule s = base.withDefinition(base.definition().withTiming(rule), T0).withCursor(first, 0, T0);
        store.useTransaction(tx -> tx.schedules().insert(s));
        assertThat(store.inTransaction((StoreTx tx) -> tx.schedules().find(tenant, s.id())))
                .contains(s);

        clock.set(first);
        assertThat(store.inTransaction((StoreTx tx) -> Materialisation.materialise(tx, List.of(s), first, ids, first)))
                .hasSize(1);
        Schedule after = store.inTransaction((StoreTx tx) -> tx.schedules().find(tenant, s.id()))
                .orElseThrow();
        assertThat(after.status()).isEqualTo(ScheduleStatus.ACTIVE);
        assertThat(after.nextFireAt()).isEqualTo(first.plus(Duration.ofHours(2)));
        assertThat(after.lastSequence()).isEqualTo(1);
    }

    @Test
    void anotherTenantsScheduleIsInvisible() {
        Schedule s = schedule(tenant, T0);
        Tenant otherProject = new Tenant("prj_b", Mode.TEST);
        Tenant otherMode = new Tenant(tenant.projectId(), Mode.LIVE);
        for (Tenant t : List.of(otherProject, otherMode)) {
            assertThat(store.inTransaction((StoreTx tx) -> tx.schedules().find(t, s.id())))
                    .isEmpty();
            assertThat(store.inTransaction((StoreTx tx) -> tx.schedules().findForUpdate(t, s.id())))
                    .isEmpty();
            assertThat(store.inTransaction((StoreTx tx) -> tx.schedules().list(t, null, 10, null))
                            .data())
                    .isEmpty();
        }
        assertThat(store.inTransaction((StoreTx tx) -> tx.schedules().find(tenant, s.id())))
                .isPresent();
    }

    @Test
    void listPagesNewestFirstWithCursorAndStatusFilter() {
        List<Schedule> made = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            clock.advance(Duration.ofMillis(5));
            Schedule s = newSchedule(tenant, T0);
            if (i % 2 == 1) s = s.withStatus(ScheduleStatus.PAUSED, Schedule.PAUSED_BY_USER, clock.instant());
            Schedule fin = s;
            store.useTransaction(tx -> tx.schedules().insert(fin));
            made.add(fin);
        }
        List<String> newestFirst = made.stream()
                .map(Schedule::id)
                .sorted(java.util.Comparator.reverseOrder())
                .toList();
        assertThat(newestFirst.get(0)).isEqualTo(made.get(6).id());

        Page<Schedule> p1 = store.inTransaction((StoreTx tx) -> tx.schedules().list(tenant, null, 3, null));
        assertThat(p1.data()).extracting(Schedule::id).containsExactlyElementsOf(newestFirst.subList(0, 3));
        assertThat(p1.hasMore()).isTrue();
        Page<Schedule> p2 = store.inTransaction((StoreTx tx) ->
                tx.schedules().list(tenant, null, 3, p1.data().get(2).id()));
        assertThat(p2.data()).extracting(Schedule::id).containsExactlyElementsOf(newestFirst.subList(3, 6));
        Page<Schedule> p3 = store.inTransaction((StoreTx tx) ->
                tx.schedules().list(tenant, null, 3, p2.data().get(2).id()));
        assertThat(p3.data()).extracting(Schedule::id).containsExactly(newestFirst.get(6));
        assertThat(p3.hasMore()).isFalse();

        Page<Schedule> paused =
                store.inTransaction((StoreTx tx) -> tx.schedules().list(tenant, ScheduleStatus.PAUSED, 10, null));
        assertThat(paused.data())
                .extracting(Schedule::id)
                .containsExactly(made.get(5).id(), made.get(3).id(), made.get(1).id());
        assertThat(paused.hasMore()).isFalse();
    }

    @Test
    void listingByStatusFindsCompletedAndActiveSchedulesAlike() {
        Schedule done = newSchedule(tenant, T0).withStatus(ScheduleStatus.COMPLETED, null, T0);
        Schedule live = newSchedule(tenant, T0);
        Schedule gone = newSchedule(tenant, T0).withStatus(ScheduleStatus.DELETED, null, T0);
        store.useTransaction(tx -> List.of(done, live, gone).forEach(tx.schedules()::insert));
        for (ScheduleStatus status : List.of(ScheduleStatus.COMPLETED, ScheduleStatus.ACTIVE, ScheduleStatus.DELETED)) {
            Schedule expected =
                    status == ScheduleStatus.COMPLETED ? done : status == ScheduleStatus.ACTIVE ? live : gone;
            assertThat(store.inTransaction((StoreTx tx) -> tx.schedules().list(tenant, status, 10, null))
                            .data())
                    .as(status.wireName())
                    .extracting(Schedule::id)
                    .containsExactly(expected.id());
        }
    }

    @Test
    void updateWritesEveryField() {
        Schedule s = schedule(tenant, T0);
        Schedule changed = s.withDefinition(s.definition().withEndpoint("https://example.org/new"), T0.plusSeconds(5))
                .withStatus(ScheduleStatus.PAUSED, Schedule.PAUSED_BY_USER, T0.plusSeconds(6))
                .withConsecutiveFailures(2, T0.plusSeconds(7))
                .withCursor(T0.plusSeconds(60), 4, T0.plusSeconds(8));
        assertThat(store.inTransaction((StoreTx tx) -> tx.schedules().update(changed)))
                .isTrue();
        assertThat(store.inTransaction((StoreTx tx) -> tx.schedules().findForUpdate(tenant, s.id())))
                .contains(changed);
        Schedule ghost = newSchedule(tenant, T0);
        assertThat(store.inTransaction((StoreTx tx) -> tx.schedules().update(ghost)))
                .isFalse();
    }

    static java.util.Set<String> advance(StoreTx tx, Schedule s, Instant expected, Instant next, long sequence) {
        return tx.schedules().advanceCursors(List.of(new CursorMove(s.id(), expected, next, sequence)), T0);
    }

    @Test
    void advanceCursorLetsExactlyOneRacerWin() throws Exception {
        Schedule s = schedule(tenant, T0);
        List<Boolean> won = Race.run(
                8,
                () -> store.inTransaction((StoreTx tx) ->
                        advance(tx, s, T0, T0.plusSeconds(60), 1).contains(s.id())));
        assertThat(won).containsOnlyOnce(true);
        Schedule after = store.inTransaction((StoreTx tx) -> tx.schedules().find(tenant, s.id()))
                .orElseThrow();
        assertThat(after.nextFireAt()).isEqualTo(T0.plusSeconds(60));
        assertThat(after.lastSequence()).isEqualTo(1);
        assertThat(after.status()).isEqualTo(ScheduleStatus.ACTIVE);
    }

    @Test
    void advanceCursorsMovesManyInOneCallOnlyWhereEachCursorIsStillWhereItWasRead() {
        Schedule a = schedule(tenant, T0);
        Schedule b = schedule(tenant, T0.plusSeconds(1));
        Schedule c = schedule(tenant, T0.plusSeconds(2));
        Schedule paused = schedule(tenant, T0);
        store.useTransaction(
                tx -> tx.schedules().update(paused.withStatus(ScheduleStatus.PAUSED, Schedule.PAUSED_BY_USER, T0)));
        var won = store.inTransaction((StoreTx tx) -> tx.schedules()
                .advanceCursors(
                        List.of(
                                new CursorMove(a.id(), T0, T0.plusSeconds(60), 1),
                                new CursorMove(b.id(), T0, T0.plusSeconds(61), 1), // b's cursor is elsewhere: it loses
                                new CursorMove(c.id(), T0.plusSeconds(2), null, 3),
                                new CursorMove(paused.id(), T0, T0.plusSeconds(60), 1),
                                new CursorMove("sch_unknown", T0, null, 1)),
                        T0.plusSeconds(9)));
        assertThat(won).containsExactlyInAnyOrder(a.id(), c.id());
        Schedule a2 = store.inTransaction((StoreTx tx) -> tx.schedules().find(tenant, a.id()))
                .orElseThrow();
        assertThat(a2.nextFireAt()).isEqualTo(T0.plusSeconds(60));
        assertThat(a2.updatedAt()).isEqualTo(T0.plusSeconds(9));
        Schedule c2 = store.inTransaction((StoreTx tx) -> tx.schedules().find(tenant, c.id()))
                .orElseThrow();
        assertThat(c2.nextFireAt()).isNull();
        assertThat(c2.lastSequence()).isEqualTo(3);
        assertThat(c2.status())
                .as("an ended rule stays active until nothing is pending")
                .isEqualTo(ScheduleStatus.ACTIVE);
        assertThat(store.inTransaction((StoreTx tx) -> tx.schedules().find(tenant, b.id())))
                .contains(b);
        assertThat(store.inTransaction((StoreTx tx) -> tx.schedules().find(tenant, paused.id()))
                        .orElseThrow()
                        .nextFireAt())
                .isEqualTo(T0);
    }

    @Test
    void aScheduleWhoseRuleEndedIsCompletedOnlyOnceNoDeliveryIsPending() {
        Schedule ended = schedule(tenant, T0);
        Schedule withPending = schedule(tenant, T0);
        Schedule stillRunning = schedule(tenant, T0);
        delivery(withPending, T0);
        store.useTransaction(tx -> {
            advance(tx, ended, T0, null, 1);
            advance(tx, withPending, T0, null, 1);
        });
        var completed = store.inTransaction((StoreTx tx) -> tx.schedules()
                .completeIfFinished(List.of(ended.id(), withPending.id(), stillRunning.id()), T0.plusSeconds(1)));
        assertThat(completed).containsExactly(ended.id());
        assertThat(store.inTransaction((StoreTx tx) -> tx.schedules().find(tenant, ended.id()))
                        .orElseThrow()
                        .status())
                .isEqualTo(ScheduleStatus.COMPLETED);
        assertThat(store.inTransaction((StoreTx tx) -> tx.schedules().find(tenant, withPending.id()))
                        .orElseThrow()
                        .status())
                .isEqualTo(ScheduleStatus.ACTIVE);
        assertThat(store.inTransaction((StoreTx tx) -> tx.schedules().find(tenant, stillRunning.id()))
                        .orElseThrow()
                        .status())
                .isEqualTo(ScheduleStatus.ACTIVE);
    }

    @Test
    void advanceCursorRefusesAPausedSchedule() {
        Schedule s = schedule(tenant, T0);
        store.useTransaction(
                tx -> tx.schedules().update(s.withStatus(ScheduleStatus.PAUSED, Schedule.PAUSED_BY_USER, T0)));
        assertThat(store.inTransaction((StoreTx tx) -> advance(tx, s, T0, null, 1)))
                .isEmpty();
    }

    @Test
    void insertAllWritesManySchedulesThatReadBackAsWritten() {
        List<Schedule> many = new ArrayList<>();
        for (int i = 0; i < 2_500; i++) many.add(newSchedule(tenant, T0.plusSeconds(i)));
        store.useTransaction(tx -> tx.schedules().insertAll(many));
        for (Schedule s : List.of(many.get(0), many.get(1234), many.get(2499)))
            assertThat(store.inTransaction((StoreTx tx) -> tx.schedules().find(tenant, s.id())))
                    .contains(s);
        assertThat(store.inTransaction(
                        (StoreTx tx) -> tx.schedules().dueForMaterialisation(T0.plusSeconds(10_000), 5_000)))
                .hasSize(2_500);
    }

    @Test
    void dueForMaterialisationListsActiveSchedulesUpToTheHorizonEarliestFirst() {
        Schedule late = schedule(tenant, T0.plusSeconds(30));
        Schedule early = schedule(new Tenant("prj_b", Mode.LIVE), T0.plusSeconds(10));
        schedule(tenant, T0.plusSeconds(120));
        Schedule paused = newSchedule(tenant, T0).withStatus(ScheduleStatus.PAUSED, Schedule.PAUSED_BY_USER, T0);
        store.useTransaction(tx -> tx.schedules().insert(paused));

        assertThat(store.inTransaction((StoreTx tx) -> tx.schedules().dueForMaterialisation(T0.plusSeconds(60), 10)))
                .extracting(Schedule::id)
                .containsExactly(early.id(), late.id());
        assertThat(store.inTransaction((StoreTx tx) -> tx.schedules().dueForMaterialisation(T0.plusSeconds(60), 1)))
                .extracting(Schedule::id)
                .containsExactly(early.id());
    }

    @Test
    void materialisingWritesTheOccurrenceOnceAndKeepsAOneShotActiveWhileItsDeliveryIsPending() {
        Schedule s = schedule(tenant, T0);
        var first = store.inTransaction((StoreTx tx) -> Materialisation.materialise(tx, List.of(s), T0, ids, T0));
        var again = store.inTransaction((StoreTx tx) -> Materialisation.materialise(tx, List.of(s), T0, ids, T0));
        assertThat(first).hasSize(1);
        assertThat(again).isEmpty();
        Schedule after = store.inTransaction((StoreTx tx) -> tx.schedules().find(tenant, s.id()))
                .orElseThrow();
        assertThat(after.status()).isEqualTo(ScheduleStatus.ACTIVE);
        assertThat(after.nextFireAt()).isNull();
        assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().list(tenant, s.id(), null, 10, null))
                        .data())
                .hasSize(1);
    }

    @Test
    void aTransactionThatThrowsLeavesNothingAndRethrowsTheSameException() {
        Schedule s = newSchedule(tenant, T0);
        IllegalStateException boom = new IllegalStateException("boom");
        Optional<Throwable> thrown = Optional.empty();
        try {
            store.useTransaction(tx -> {
                tx.schedules().insert(s);
                tx.deliveries().insertIfAbsent(dev.idem.core.Delivery.scheduled(ids.next("dlv"), s, T0, 1, T0));
                throw boom;
            });
        } catch (IllegalStateException e) {
            thrown = Optional.of(e);
        }
        assertThat(thrown).containsSame(boom);
        assertThat(store.inTransaction((StoreTx tx) -> tx.schedules().find(tenant, s.id())))
                .isEmpty();
        assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().list(tenant, null, null, 10, null))
                        .data())
                .isEmpty();
    }
}

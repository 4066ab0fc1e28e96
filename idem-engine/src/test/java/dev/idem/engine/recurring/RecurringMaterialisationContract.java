package dev.idem.engine.recurring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.CatchUp;
import dev.idem.core.Delivery;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.IdGenerator;
import dev.idem.core.Materialisation;
import dev.idem.core.Mode;
import dev.idem.core.Project;
import dev.idem.core.Schedule;
import dev.idem.core.ScheduleDefinition;
import dev.idem.core.ScheduleStatus;
import dev.idem.core.Tenant;
import dev.idem.core.Timing;
import dev.idem.core.recurrence.RecurrenceSpec;
import dev.idem.core.store.Store;
import dev.idem.wire.testing.MutableClock;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Materialisation of recurring schedules on a real store: catch-up after downtime, no pile-up for fast
 * rules, and concurrent materialisers creating each occurrence once. One subclass per store.
 */
abstract class RecurringMaterialisationContract {
    static final Instant T0 = Instant.parse("2026-03-02T08:00:00Z");
    static final Duration HORIZON = Duration.ofSeconds(30);
    MutableClock clock;
    Store store;
    IdGenerator ids;
    Tenant tenant;

    abstract Store open(MutableClock clock);

    @BeforeEach
    void setUp() {
        clock = MutableClock.at(T0);
        store = open(clock);
        ids = new IdGenerator(clock, new SecureRandom());
        Project p = new Project(ids.next("proj"), "p" + System.nanoTime(), T0);
        store.useTransaction(tx -> tx.projects().insert(p));
        tenant = new Tenant(p.id(), Mode.TEST);
    }

    @AfterEach
    void tearDown() {
        store.close();
    }

    Schedule schedule(String rule, CatchUp catchUp) {
        RecurrenceSpec spec = new RecurrenceSpec(
                RecurrenceSpec.Kind.RRULE,
                rule,
                ZoneId.of("Europe/Paris"),
                LocalDateTime.ofInstant(clock.instant(), ZoneId.of("Europe/Paris")),
                List.of(),
                null,
                null);
        Timing.Recurring timing = new Timing.Recurring(spec, catchUp);
        ScheduleDefinition def = ScheduleDefinition.builder("https://example.com/h", timing)
                .idempotencyKey("k")
                .timeout(Duration.ofSeconds(30))
                .autoPauseAfter(5)
                .build();
        Instant now = clock.instant();
        Schedule s = new Schedule(
                ids.next("sch"),
                tenant,
                ScheduleStatus.ACTIVE,
                def,
                timing.first(now).orElseThrow(),
                0,
                null,
                0,
                now,
                now);
        store.useTransaction(tx -> tx.schedules().insert(s));
        return s;
    }

    /** What the engine's materialiser does each round: pages of due schedules, each in one transaction, until none is due. */
    int materialise() {
        int written = 0;
        while (true) {
            Instant now = clock.instant();
            int[] page = {0};
            written += store.inTransaction(tx -> {
                List<Schedule> due = tx.schedules().dueForMaterialisation(now.plus(HORIZON), 100);
                page[0] = due.size();
                return Materialisation.materialise(tx, due, now.plus(HORIZON), ids, now)
                        .size();
            });
            if (page[0] == 0) return written;
        }
    }

    List<Delivery> deliveries(Schedule s) {
        List<Delivery> all = new ArrayList<>();
        String after = null;
        while (true) {
            String cursor = after;
            var page = store.inTransaction(tx -> tx.deliveries().list(tenant, s.id(), null, 100, cursor));
            all.addAll(page.data());
            if (!page.hasMore()) return all;
            after = page.data().get(page.data().size() - 1).id();
        }
    }

    Schedule reload(Schedule s) {
        return store.inTransaction(tx -> tx.schedules().find(tenant, s.id())).orElseThrow();
    }

    @Test
    void afterDowntimeCatchUpLatestSendsOneDeliveryForTheMostRecentMissedOccurrence() {
        Schedule s = schedule("FREQ=MINUTELY", CatchUp.LATEST);
        clock.advance(Duration.ofMinutes(90).plusSeconds(10));
        materialise();
        List<Delivery> d = deliveries(s);
        assertThat(d).hasSize(1);
        assertThat(d.get(0).scheduledFor()).isEqualTo(T0.plus(Duration.ofMinutes(90)));
        assertThat(d.get(0).sequence()).isEqualTo(1);
        assertThat(reload(s).nextFireAt()).isEqualTo(T0.plus(Duration.ofMinutes(91)));
    }

    @Test
    void afterDowntimeCatchUpAllSendsAtMostTheBoundOfMissedOccurrences() {
        Schedule s = schedule("FREQ=MINUTELY", CatchUp.ALL);
        clock.advance(Duration.ofMinutes(180).plusSeconds(10));
        materialise();
        List<Delivery> d = deliveries(s);
        assertThat(d).hasSize(CatchUp.MAX_ALL);
        assertThat(d.stream().map(Delivery::scheduledFor).max(Instant::compareTo))
                .contains(T0.plus(Duration.ofMinutes(180)));
        assertThat(d.stream().map(Delivery::scheduledFor).min(Instant::compareTo))
                .contains(T0.plus(Duration.ofMinutes(180 - CatchUp.MAX_ALL + 1)));
        assertThat(d.stream().map(Delivery::sequence).distinct().count()).isEqualTo(CatchUp.MAX_ALL);
    }

    @Test
    void afterDowntimeCatchUpNoneSkipsEveryMissedOccurrence() {
        Schedule s = schedule("FREQ=MINUTELY", CatchUp.NONE);
        clock.advance(Duration.ofMinutes(90).plusSeconds(10));
        materialise();
        assertThat(deliveries(s)).isEmpty();
        assertThat(reload(s).nextFireAt()).isEqualTo(T0.plus(Duration.ofMinutes(91)));
        clock.advance(Duration.ofMinutes(1));
        materialise();
        assertThat(deliveries(s)).extracting(Delivery::scheduledFor).containsExactly(T0.plus(Duration.ofMinutes(91)));
    }

    @Test
    void aSecondlyScheduleThatFellBehindDoesNotPileUpDeliveries() {
        Schedule s = schedule("FREQ=SECONDLY", CatchUp.LATEST);
        materialise();
        int ahead = deliveries(s).size();
        assertThat(ahead).isBetween(30, 31);
        clock.advance(Duration.ofHours(1));
        materialise();
        // an hour behind: one catch-up delivery plus the next horizon, not 3,600 rows
        assertThat(deliveries(s).size() - ahead).isBetween(30, 32);
    }

    @Test
    void concurrentMaterialisersCreateEachOccurrenceOnceWithContiguousSequences() throws Exception {
        List<Schedule> schedules = new ArrayList<>();
        for (int i = 0; i < 20; i++) schedules.add(schedule("FREQ=SECONDLY;INTERVAL=2", CatchUp.LATEST));
        ExecutorService pool = Executors.newFixedThreadPool(4);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Integer>> runs = new ArrayList<>();
        for (int n = 0; n < 4; n++)
            runs.add(pool.submit(() -> {
                go.await();
                return materialise();
            }));
        go.countDown();
        int written = 0;
        for (Future<Integer> f : runs) written += f.get();
        pool.shutdown();
        int total = 0;
        for (Schedule s : schedules) {
            List<Delivery> d = deliveries(s);
            Set<Instant> occurrences = new HashSet<>();
            d.forEach(x -> occurrences.add(x.scheduledFor()));
            assertThat(occurrences).hasSize(d.size());
            assertThat(d.stream().map(Delivery::sequence).sorted().toList())
                    .isEqualTo(java.util.stream.LongStream.rangeClosed(1, d.size())
                            .boxed()
                            .toList());
            assertThat(d).hasSize(16);
            total += d.size();
        }
        assertThat(written).isEqualTo(total);
    }

    Schedule cron(String expression) {
        RecurrenceSpec spec =
                new RecurrenceSpec(RecurrenceSpec.Kind.CRON, expression, ZoneId.of("UTC"), null, List.of(), null, null);
        Timing.Recurring timing = new Timing.Recurring(spec, CatchUp.LATEST);
        ScheduleDefinition def = ScheduleDefinition.builder("https://example.com/c", timing)
                .timeout(Duration.ofSeconds(30))
                .autoPauseAfter(5)
                .build();
        Instant now = clock.instant();
        return new Schedule(
                ids.next("sch"),
                tenant,
                ScheduleStatus.ACTIVE,
                def,
                timing.first(now).orElseThrow(),
                0,
                null,
                0,
                now,
                now);
    }

    @Test
    void thousandsOfCronSchedulesDueAtOneInstantAreAllWrittenInOnePassOfPages() {
        // 09:00 tomorrow for all of them, created now (08:00): the rows appear when 09:00 enters the horizon
        List<Schedule> many = new ArrayList<>();
        for (int i = 0; i < 2_500; i++) many.add(cron("0 9 * * *"));
        store.useTransaction(tx -> tx.schedules().insertAll(many));
        Instant nine = Instant.parse("2026-03-02T09:00:00Z");
        assertThat(materialise()).isZero();
        clock.set(nine.minus(HORIZON).plusSeconds(1));
        int pages = 0;
        int written = 0;
        while (true) {
            Instant now = clock.instant();
            int[] read = {0};
            written += store.inTransaction(tx -> {
                List<Schedule> due = tx.schedules().dueForMaterialisation(now.plus(HORIZON), 1_000);
                read[0] = due.size();
                return Materialisation.materialise(tx, due, now.plus(HORIZON), ids, now)
                        .size();
            });
            if (read[0] == 0) break;
            pages++;
        }
        assertThat(written).isEqualTo(2_500);
        assertThat(pages).as("a page of 1,000 schedules per transaction").isEqualTo(3);
        for (Schedule s : List.of(many.get(0), many.get(1_777), many.get(2_499))) {
            assertThat(deliveries(s)).extracting(Delivery::scheduledFor).containsExactly(nine);
            Schedule after = reload(s);
            assertThat(after.nextFireAt()).isEqualTo(nine.plus(Duration.ofDays(1)));
            assertThat(after.lastSequence()).isEqualTo(1);
        }
    }

    /** A SECONDLY rule materialised ahead, then paused for 20 s (its written rows fall due meanwhile), then resumed. */
    List<Delivery> pauseAndResumeAfter(CatchUp policy, Duration paused) {
        Schedule s = schedule("FREQ=SECONDLY", policy);
        materialise();
        int ahead = deliveries(s).size();
        assertThat(ahead).isBetween(30, 31);
        Schedule pausing = reload(s).withStatus(ScheduleStatus.PAUSED, Schedule.PAUSED_BY_USER, clock.instant());
        store.useTransaction(tx -> tx.schedules().update(pausing));
        clock.advance(paused);
        materialise();
        assertThat(deliveries(s)).as("nothing is materialised while paused").hasSize(ahead);
        Instant now = clock.instant();
        Schedule resumed = store.inTransaction(tx -> dev.idem.core.Resumption.resume(
                tx, tx.schedules().findForUpdate(tenant, s.id()).orElseThrow(), ids, now));
        assertThat(resumed.status()).isEqualTo(ScheduleStatus.ACTIVE);
        assertThat(reload(s).nextFireAt()).isAfter(now);
        return deliveries(s);
    }

    static List<Instant> overdue(List<Delivery> d, Instant now, DeliveryStatus status) {
        return d.stream()
                .filter(x -> !x.scheduledFor().isAfter(now) && x.status() == status)
                .map(Delivery::scheduledFor)
                .sorted()
                .toList();
    }

    @Test
    void resumingWithCatchUpLatestDeliversOnlyTheMostRecentOccurrenceMissedWhilePausedEvenOneWrittenBeforeThePause() {
        List<Delivery> d = pauseAndResumeAfter(CatchUp.LATEST, Duration.ofSeconds(20));
        Instant now = clock.instant();
        assertThat(overdue(d, now, DeliveryStatus.SCHEDULED)).containsExactly(T0.plusSeconds(20));
        assertThat(overdue(d, now, DeliveryStatus.CANCELLED)).hasSize(20);
        assertThat(d.stream().filter(x -> x.scheduledFor().isAfter(now)).map(Delivery::status))
                .containsOnly(DeliveryStatus.SCHEDULED);
    }

    @Test
    void resumingWithCatchUpLatestAfterALongPauseWritesTheLatestUnwrittenOccurrenceAndCancelsEveryWrittenOne() {
        List<Delivery> d = pauseAndResumeAfter(CatchUp.LATEST, Duration.ofMinutes(10));
        Instant now = clock.instant();
        assertThat(overdue(d, now, DeliveryStatus.SCHEDULED)).containsExactly(T0.plus(Duration.ofMinutes(10)));
        assertThat(overdue(d, now, DeliveryStatus.CANCELLED)).hasSizeBetween(30, 31);
        assertThat(d.stream().map(Delivery::sequence).distinct().count())
                .as("sequences stay unique")
                .isEqualTo(d.size());
    }

    @Test
    void resumingWithCatchUpNoneCancelsEveryMissedOccurrence() {
        List<Delivery> d = pauseAndResumeAfter(CatchUp.NONE, Duration.ofSeconds(20));
        Instant now = clock.instant();
        assertThat(overdue(d, now, DeliveryStatus.SCHEDULED)).isEmpty();
        assertThat(overdue(d, now, DeliveryStatus.CANCELLED)).hasSize(21);
    }

    @Test
    void resumingWithCatchUpAllKeepsEveryMissedOccurrenceUpToTheBound() {
        List<Delivery> d = pauseAndResumeAfter(CatchUp.ALL, Duration.ofSeconds(20));
        Instant now = clock.instant();
        assertThat(overdue(d, now, DeliveryStatus.SCHEDULED)).hasSize(21);
    }

    @Test
    void resumingWithCatchUpAllAfterALongPauseKeepsTheMostRecentMissedOnesUpToTheBound() {
        List<Delivery> longer = pauseAndResumeAfter(CatchUp.ALL, Duration.ofMinutes(5));
        Instant later = clock.instant();
        assertThat(overdue(longer, later, DeliveryStatus.SCHEDULED))
                .hasSize(CatchUp.MAX_ALL)
                .last()
                .isEqualTo(later);
        assertThat(overdue(longer, later, DeliveryStatus.CANCELLED))
                .as("written before the pause, older than the 100 most recent")
                .hasSizeBetween(30, 31)
                .first()
                .isEqualTo(T0);
    }

    @Test
    void aCountedRuleIsActiveUntilItsLastDeliveryIsFinalThenCompleted() {
        Schedule s = schedule("FREQ=SECONDLY;INTERVAL=10;COUNT=3", CatchUp.LATEST);
        materialise();
        List<Delivery> d = deliveries(s);
        assertThat(d)
                .extracting(Delivery::scheduledFor)
                .containsExactlyInAnyOrder(T0, T0.plusSeconds(10), T0.plusSeconds(20));
        assertThat(reload(s).nextFireAt()).as("the rule has ended").isNull();
        assertThat(reload(s).status()).isEqualTo(ScheduleStatus.ACTIVE);
        clock.advance(Duration.ofSeconds(25));
        List<dev.idem.core.store.DeliveryQueue.Claim> claims = store.queue().claimDue("n", Duration.ofMinutes(1), 10);
        assertThat(claims).hasSize(3);
        List<dev.idem.core.store.DeliveryQueue.Outcome> outcomes = new ArrayList<>();
        for (var c : claims) {
            String id = c.delivery().id();
            boolean last = c.delivery().scheduledFor().equals(T0.plusSeconds(20));
            outcomes.add(new dev.idem.core.store.DeliveryQueue.Outcome(
                    id,
                    new dev.idem.core.Attempt(
                            ids.next("att"),
                            id,
                            1,
                            clock.instant(),
                            3,
                            last ? 500 : 200,
                            last ? "HTTP 500" : null,
                            null),
                    last ? DeliveryStatus.RETRYING : DeliveryStatus.SUCCEEDED,
                    last ? clock.instant().plusSeconds(5) : null,
                    last ? "HTTP 500" : null));
        }
        store.queue().complete("n", outcomes);
        assertThat(reload(s).status()).as("one delivery is retrying").isEqualTo(ScheduleStatus.ACTIVE);
        clock.advance(Duration.ofSeconds(5));
        var retry = store.queue().claimDue("n", Duration.ofMinutes(1), 10).get(0);
        String id = retry.delivery().id();
        store.queue()
                .complete(
                        "n",
                        List.of(new dev.idem.core.store.DeliveryQueue.Outcome(
                                id,
                                new dev.idem.core.Attempt(
                                        ids.next("att"), id, 2, clock.instant(), 3, null, "connection refused", null),
                                DeliveryStatus.DEAD,
                                null,
                                "connection refused")));
        assertThat(reload(s).status()).isEqualTo(ScheduleStatus.COMPLETED);
    }

    @Test
    void aRuleThatEndsWhileDownWithCatchUpNoneIsCompletedByTheMaterialiser() {
        Schedule s = schedule("FREQ=MINUTELY;COUNT=3", CatchUp.NONE);
        clock.advance(Duration.ofHours(1));
        materialise();
        assertThat(deliveries(s)).isEmpty();
        assertThat(reload(s).status()).isEqualTo(ScheduleStatus.COMPLETED);
    }
}

package dev.idem.engine.recurring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.CatchUp;
import dev.idem.core.Delivery;
import dev.idem.core.HeaderProfile;
import dev.idem.core.IdGenerator;
import dev.idem.core.Materialisation;
import dev.idem.core.Mode;
import dev.idem.core.Project;
import dev.idem.core.RetryPolicy;
import dev.idem.core.Schedule;
import dev.idem.core.ScheduleDefinition;
import dev.idem.core.ScheduleStatus;
import dev.idem.core.Tenant;
import dev.idem.core.Timing;
import dev.idem.core.recurrence.RecurrenceSpec;
import dev.idem.core.store.Store;
import dev.idem.store.testing.MutableClock;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
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
        RecurrenceSpec spec = new RecurrenceSpec(RecurrenceSpec.Kind.RRULE, rule, ZoneId.of("Europe/Paris"),
                LocalDateTime.ofInstant(clock.instant(), ZoneId.of("Europe/Paris")), List.of(), null, null);
        Timing.Recurring timing = new Timing.Recurring(spec, catchUp);
        ScheduleDefinition def = new ScheduleDefinition("https://example.com/h", timing, null, null, null, Map.of(), null, "k", null,
                RetryPolicy.DEFAULT, Duration.ofSeconds(30), 5, HeaderProfile.STANDARD, null);
        Instant now = clock.instant();
        Schedule s = new Schedule(ids.next("sch"), tenant, ScheduleStatus.ACTIVE, def, timing.first(now).orElseThrow(), 0, null, 0, now, now);
        store.useTransaction(tx -> tx.schedules().insert(s));
        return s;
    }

    /** What the engine's materialiser does each round: every due schedule, one occurrence per step, until none is due. */
    int materialise() {
        int written = 0;
        while (true) {
            Instant now = clock.instant();
            List<Schedule> due = store.inTransaction(tx -> tx.schedules().dueForMaterialisation(now.plus(HORIZON), 100));
            if (due.isEmpty()) return written;
            for (Schedule s : due) if (store.inTransaction(tx -> Materialisation.step(tx, s, now.plus(HORIZON), ids, now)).isPresent()) written++;
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
        assertThat(d.stream().map(Delivery::scheduledFor).max(Instant::compareTo)).contains(T0.plus(Duration.ofMinutes(180)));
        assertThat(d.stream().map(Delivery::scheduledFor).min(Instant::compareTo)).contains(T0.plus(Duration.ofMinutes(180 - CatchUp.MAX_ALL + 1)));
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
        for (int n = 0; n < 4; n++) runs.add(pool.submit(() -> {
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
                    .isEqualTo(java.util.stream.LongStream.rangeClosed(1, d.size()).boxed().toList());
            assertThat(d).hasSize(16);
            total += d.size();
        }
        assertThat(written).isEqualTo(total);
    }
}

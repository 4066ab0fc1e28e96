package dev.idem.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Attempt;
import dev.idem.core.Delivery;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.IdGenerator;
import dev.idem.core.Mode;
import dev.idem.core.Schedule;
import dev.idem.core.ScheduleDefinition;
import dev.idem.core.ScheduleStatus;
import dev.idem.core.Tenant;
import dev.idem.core.Timing;
import dev.idem.core.store.DeliveryQueue;
import dev.idem.core.store.Store;
import dev.idem.store.testing.TestStores;
import dev.idem.wire.testing.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A pruner run goes on until history is back within retention, and stops when its thread is interrupted. */
class PrunerRunTest {
    private static final Duration RETENTION = Duration.ofDays(30);
    private static final int BATCH = 2;
    /** More than the twenty batches a run once took at most. */
    private static final int FINISHED = 45;

    @TempDir
    Path dir;

    private final MutableClock clock = MutableClock.at("2026-03-10T17:00:00Z");
    private final IdGenerator ids = new IdGenerator(clock, new SecureRandom());
    private final Tenant tenant = new Tenant("prj_a", Mode.TEST);

    @Test
    void aRunPrunesEveryExpiredDeliveryHoweverManyBatchesItTakes() {
        try (Store store = TestStores.sqlite(dir, clock)) {
            List<Delivery> done = finished(store);
            clock.advance(RETENTION.plusDays(1));
            Maintenance pruner = pruner(store);

            assertThat(pruner.prune()).isGreaterThanOrEqualTo(FINISHED);
            for (Delivery d : done) assertThat(find(store, d.id())).isEmpty();
        }
    }

    @Test
    void anInterruptedRunDeletesNoFurtherBatchAndKeepsTheInterrupt() {
        try (Store store = TestStores.sqlite(dir, clock)) {
            List<Delivery> done = finished(store);
            clock.advance(RETENTION.plusDays(1));
            Thread.currentThread().interrupt();
            try {
                assertThat(pruner(store).prune()).isZero();
                assertThat(Thread.currentThread().isInterrupted()).isTrue();
            } finally {
                Thread.interrupted();
            }
            assertThat(find(store, done.get(0).id())).isPresent();
        }
    }

    private java.util.Optional<Delivery> find(Store store, String id) {
        return store.inReadTransaction(tx -> tx.deliveries().find(tenant, id));
    }

    private Maintenance pruner(Store store) {
        return new Maintenance(store, clock, RETENTION, new EngineMetrics(new SimpleMeterRegistry()), () -> {}, BATCH);
    }

    /** {@link #FINISHED} deliveries of one schedule, claimed and recorded succeeded now. */
    private List<Delivery> finished(Store store) {
        var now = clock.instant();
        Schedule s = new Schedule(
                ids.next("sch"),
                tenant,
                ScheduleStatus.ACTIVE,
                ScheduleDefinition.builder("https://example.com/hook", new Timing.Once(now))
                        .build(),
                now,
                0,
                null,
                0,
                now,
                now);
        List<Delivery> due = new ArrayList<>();
        for (int i = 0; i < FINISHED; i++)
            due.add(Delivery.scheduled(ids.next("dlv"), s, now.minusMillis(i), i + 1, now));
        store.useTransaction(tx -> {
            tx.schedules().insert(s);
            tx.deliveries().insertAll(due);
        });
        List<DeliveryQueue.Outcome> outcomes = new ArrayList<>();
        for (DeliveryQueue.Claim c : store.queue().claimDue("n", Duration.ofMinutes(1), FINISHED)) {
            Delivery d = c.delivery();
            Attempt a = new Attempt(ids.next("att"), d.id(), d.attemptCount(), now, 5, 200, null, null);
            outcomes.add(new DeliveryQueue.Outcome(d.id(), a, DeliveryStatus.SUCCEEDED, null, null));
        }
        assertThat(outcomes).hasSize(FINISHED);
        store.queue().complete("n", outcomes);
        return due;
    }
}

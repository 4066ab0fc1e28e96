package dev.idem.store.contract;

import dev.idem.core.Delivery;
import dev.idem.core.IdGenerator;
import dev.idem.core.Mode;
import dev.idem.core.Schedule;
import dev.idem.core.ScheduleDefinition;
import dev.idem.core.ScheduleStatus;
import dev.idem.core.Tenant;
import dev.idem.core.Timing;
import dev.idem.core.store.Store;
import dev.idem.store.testing.TestDatabase;
import dev.idem.wire.testing.MutableClock;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;

/**
 * One database and one store per test class, wiped before each test; subclasses say which database.
 * Time is a {@link MutableClock} reset to the same instant before each test.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class StoreTestBase {
    static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");
    protected final MutableClock clock = MutableClock.at(T0);
    protected final IdGenerator ids = new IdGenerator(clock, new SecureRandom());
    protected final Tenant tenant = new Tenant("prj_a", Mode.TEST);
    protected TestDatabase database;
    protected Store store;

    /** A new, empty database of the dialect under test. */
    protected abstract TestDatabase createDatabase();

    @BeforeAll
    void openStore() {
        database = createDatabase();
        store = database.open(clock);
    }

    @AfterAll
    void closeStore() {
        try {
            if (store != null) store.close();
        } finally {
            if (database != null) database.close();
        }
    }

    @BeforeEach
    void cleanSlate() {
        clock.set(T0);
        database.wipe();
    }

    static ScheduleDefinition definition(Instant fireAt) {
        return ScheduleDefinition.builder("https://example.com/hook", new Timing.Once(fireAt))
                .payloadJson("{\"a\":1}")
                .headers(Map.of("X-Custom", "v"))
                .eventType("invoice.reminder")
                .build();
    }

    Schedule newSchedule(Tenant t, Instant fireAt) {
        Instant now = clock.instant();
        return new Schedule(
                ids.next("sch"), t, ScheduleStatus.ACTIVE, definition(fireAt), fireAt, 0, null, 0, now, now);
    }

    /** Inserts an active schedule firing at {@code fireAt}. */
    Schedule schedule(Tenant t, Instant fireAt) {
        Schedule s = newSchedule(t, fireAt);
        store.useTransaction(tx -> tx.schedules().insert(s));
        return s;
    }

    /** Inserts a schedule with the given auto-pause threshold. */
    Schedule scheduleWithAutoPause(int autoPauseAfter) {
        Instant now = clock.instant();
        ScheduleDefinition d = withKeyAndAutoPause(definition(now), null, autoPauseAfter);
        Schedule s = new Schedule(ids.next("sch"), tenant, ScheduleStatus.ACTIVE, d, now, 0, null, 0, now, now);
        store.useTransaction(tx -> tx.schedules().insert(s));
        return s;
    }

    /** {@code d} with its idempotency key and auto-pause threshold replaced. */
    static ScheduleDefinition withKeyAndAutoPause(ScheduleDefinition d, String idempotencyKey, int autoPauseAfter) {
        return ScheduleDefinition.builder(d.endpoint(), d.timing())
                .payloadJson(d.payloadJson())
                .body(d.body())
                .contentType(d.contentType())
                .headers(d.headers())
                .eventType(d.eventType())
                .idempotencyKey(idempotencyKey)
                .dedupId(d.dedupId())
                .retry(d.retry())
                .timeout(d.timeout())
                .autoPauseAfter(autoPauseAfter)
                .headerProfile(d.headerProfile())
                .metadataJson(d.metadataJson())
                .build();
    }

    /** Inserts a delivery of {@code s} due at {@code due}. */
    Delivery delivery(Schedule s, Instant due) {
        Delivery d = Delivery.scheduled(ids.next("dlv"), s, due, s.lastSequence() + 1, clock.instant());
        store.useTransaction(tx -> tx.deliveries().insertIfAbsent(d));
        return d;
    }

    /** Deliveries of one schedule each, all due now. */
    java.util.List<Delivery> dueDeliveries(int n) {
        Schedule s = schedule(tenant, clock.instant());
        java.util.List<Delivery> out = new java.util.ArrayList<>();
        store.useTransaction(tx -> {
            for (int i = 0; i < n; i++) {
                Delivery d =
                        Delivery.scheduled(ids.next("dlv"), s, clock.instant().minusMillis(i), i + 1, clock.instant());
                tx.deliveries().insertIfAbsent(d);
                out.add(d);
            }
        });
        return out;
    }

    static Duration seconds(long s) {
        return Duration.ofSeconds(s);
    }

    /** An endpoint of {@code t} (of application {@code applicationId}, or of the project), enabled, not yet stored. */
    protected dev.idem.core.fanout.Endpoint endpoint(Tenant t, String applicationId) {
        return new dev.idem.core.fanout.Endpoint(
                ids.next("ep"),
                t,
                applicationId,
                "https://example.com/hook",
                null,
                null,
                null,
                Map.of(),
                null,
                null,
                null,
                false,
                T0,
                T0);
    }
}

package dev.idem.bench;

import dev.idem.core.IdGenerator;
import dev.idem.core.Materialisation;
import dev.idem.core.Mode;
import dev.idem.core.Project;
import dev.idem.core.Schedule;
import dev.idem.core.ScheduleDefinition;
import dev.idem.core.ScheduleStatus;
import dev.idem.core.Tenant;
import dev.idem.core.Timing;
import dev.idem.core.store.Store;
import java.time.Duration;
import java.time.Instant;

/** What the store benches write and read the way the API does: a tenant, a one-shot with its delivery, the stats. */
final class BenchTenants {
    private BenchTenants() {}

    /** A new project, and its test tenant. */
    static Tenant tenant(Store store, IdGenerator ids, Instant now, String name) {
        Project project = new Project(ids.next("proj"), name, now);
        store.useTransaction(tx -> tx.projects().insert(project));
        return new Tenant(project.id(), Mode.TEST);
    }

    /** A one-shot due at {@code at} with its delivery written, paused after if {@code pause}. */
    static Schedule oneShot(Store store, IdGenerator ids, Tenant tenant, Instant at, boolean pause) {
        Instant now = Instant.now();
        ScheduleDefinition def = ScheduleDefinition.builder("http://127.0.0.1:9/hook", new Timing.Once(at))
                .payloadJson("{\"n\":1}")
                .build();
        Schedule s = new Schedule(ids.next("sch"), tenant, ScheduleStatus.ACTIVE, def, at, 0, null, 0, now, now);
        Materialisation.Plan plan = Materialisation.forNew(s, now, ids, now);
        store.useTransaction(tx -> {
            tx.schedules().insert(plan.advanced(now));
            tx.deliveries().insertIfAbsent(plan.deliveries().get(0));
        });
        if (!pause) return s;
        Schedule p = plan.advanced(now).withStatus(ScheduleStatus.PAUSED, "bench", now);
        store.useTransaction(tx -> tx.schedules().update(p));
        return p;
    }

    /** The dashboard's read, as {@code GET /v1/stats} makes it: its window the last 60 s. */
    static Object dashboardStats(Store store, Tenant tenant) {
        Instant now = Instant.now();
        return store.inReadTransaction(tx -> tx.stats().deliveryStats(tenant, now.minus(Duration.ofSeconds(60)), now));
    }
}

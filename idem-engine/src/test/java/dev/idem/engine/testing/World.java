package dev.idem.engine.testing;

import dev.idem.core.Attempt;
import dev.idem.core.Delivery;
import dev.idem.core.IdGenerator;
import dev.idem.core.Materialisation;
import dev.idem.core.Project;
import dev.idem.core.Schedule;
import dev.idem.core.ScheduleDefinition;
import dev.idem.core.SigningSecrets;
import dev.idem.core.store.Store;
import dev.idem.wire.SigningSecret;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/** One tenant (project and mode) in a real store, and the writes the server's create path would do. */
public final class World {
    public final Store store;
    public final Clock clock;
    public final SigningSecret secret;
    public final dev.idem.core.Tenant tenant;
    private final IdGenerator ids;

    public World(Store store, Clock clock) {
        this(store, clock, Defs.TENANT);
    }

    /** Another tenant of the same store: its project and signing secret are made if missing. */
    public World(Store store, Clock clock, dev.idem.core.Tenant tenant) {
        this.store = store;
        this.tenant = tenant;
        this.clock = clock;
        this.ids = new IdGenerator(clock, new java.security.SecureRandom());
        this.secret = SigningSecret.generate(new SplittableRandom(7));
        store.useTransaction(tx -> {
            if (tx.projects().find(tenant.projectId()).isEmpty())
                tx.projects()
                        .insert(new Project(
                                tenant.projectId(),
                                tenant.equals(Defs.TENANT) ? "default" : tenant.projectId(),
                                clock.instant()));
            tx.signingSecrets().save(new SigningSecrets(tenant, secret));
        });
    }

    /** A schedule and its first delivery (however far ahead), written in one transaction as the API does. */
    public Delivery create(ScheduleDefinition def) {
        return createMany(def, 1).get(0);
    }

    public List<Delivery> createMany(ScheduleDefinition def, int n) {
        return createEach(java.util.Collections.nCopies(n, def));
    }

    /** One schedule and delivery per definition, 200 to a transaction. */
    public List<Delivery> createEach(List<ScheduleDefinition> defs) {
        int n = defs.size();
        List<Delivery> out = new ArrayList<>(n);
        for (int from = 0; from < n; from += 200) {
            List<ScheduleDefinition> chunk = defs.subList(from, Math.min(n, from + 200));
            out.addAll(store.inTransaction(tx -> {
                List<Delivery> batch = new ArrayList<>(chunk.size());
                Instant now = clock.instant();
                List<Schedule> schedules = new ArrayList<>(chunk.size());
                for (ScheduleDefinition def : chunk) {
                    Materialisation.Plan plan = Materialisation.forNew(
                            Defs.schedule(ids.next("sch"), tenant, def, now), now.plus(Duration.ofDays(400)), ids, now);
                    schedules.add(plan.advanced(now));
                    if (!plan.deliveries().isEmpty())
                        batch.add(plan.deliveries().get(0));
                }
                tx.schedules().insertAll(schedules);
                tx.deliveries().insertAll(batch);
                tx.notifyDeliveriesDue();
                return batch;
            }));
        }
        return out;
    }

    /** Schedules only, 500 to a transaction (their occurrences are left to the materialiser). */
    public void createSchedulesOnly(List<ScheduleDefinition> defs) {
        for (int from = 0; from < defs.size(); from += 500) {
            List<ScheduleDefinition> chunk = defs.subList(from, Math.min(defs.size(), from + 500));
            store.useTransaction(tx -> {
                for (ScheduleDefinition def : chunk)
                    tx.schedules().insert(Defs.schedule(ids.next("sch"), tenant, def, clock.instant()));
            });
        }
    }

    /** A schedule only (its first occurrence is left to the materialiser). */
    public Schedule createScheduleOnly(ScheduleDefinition def) {
        return store.inTransaction(tx -> {
            Schedule s = Defs.schedule(ids.next("sch"), tenant, def, clock.instant());
            tx.schedules().insert(s);
            return s;
        });
    }

    public Delivery delivery(String id) {
        return store.inTransaction(tx -> tx.deliveries().find(tenant, id))
                .orElseThrow(() -> new AssertionError("no delivery " + id));
    }

    public Schedule schedule(String id) {
        return store.inTransaction(tx -> tx.schedules().find(tenant, id))
                .orElseThrow(() -> new AssertionError("no schedule " + id));
    }

    /** Every delivery of the tenant, newest first. */
    public List<Delivery> deliveries() {
        return store.inTransaction(tx -> {
            List<Delivery> out = new ArrayList<>();
            String after = null;
            while (true) {
                dev.idem.core.Page<Delivery> page = tx.deliveries().list(tenant, null, null, 100, after);
                out.addAll(page.data());
                if (!page.hasMore() || page.data().isEmpty()) return out;
                after = page.data().get(page.data().size() - 1).id();
            }
        });
    }

    public List<Attempt> attempts(String deliveryId) {
        return store.inTransaction(tx -> tx.deliveries().attempts(deliveryId));
    }
}

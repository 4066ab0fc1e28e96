package dev.idem.bench;

import dev.idem.core.IdGenerator;
import dev.idem.core.Materialisation;
import dev.idem.core.Mode;
import dev.idem.core.Project;
import dev.idem.core.Schedule;
import dev.idem.core.ScheduleDefinition;
import dev.idem.core.ScheduleStatus;
import dev.idem.core.SigningSecrets;
import dev.idem.core.Tenant;
import dev.idem.core.Timing;
import dev.idem.core.store.Store;
import dev.idem.engine.Engine;
import dev.idem.engine.EngineConfig;
import dev.idem.store.JdbcStores;
import dev.idem.store.StoreConfig;
import dev.idem.wire.SigningSecret;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.IntFunction;

/**
 * Idem itself: a fresh PostgreSQL database migrated by {@link JdbcStores#open}, one {@link Engine} per node
 * ({@code --nodes}: each with its own store, pool, node id and meters) with the production defaults except where
 * the options say, and one-shot schedules written through the store ports
 * exactly as {@code POST /v1/schedules} writes them (the schedule with its cursor past its occurrence and its
 * delivery, from {@link Materialisation#forNew}, in one transaction, then a due signal), {@value Contender#WRITE_CHUNK} schedules per transaction.
 * Outcomes count as recorded when the engine's {@code idem.deliveries{outcome=succeeded}} counter moves, which
 * happens after the recorder's transaction commits; with several nodes, each engine's counter counts what it
 * recorded, and the run sums them. The first node's store writes.
 */
final class IdemContender extends Contender {
    private final Postgres postgres;
    private final String database;
    /** The first node's store: it writes the schedules and reads the queue. */
    private final Store store;

    private final List<Store> stores = new ArrayList<>();
    private final List<Engine> engines = new ArrayList<>();
    private final List<SimpleMeterRegistry> meters = new ArrayList<>();
    private final Tenant tenant;
    private final SigningSecret secret;
    private final Clock clock = Clock.systemUTC();

    IdemContender(BenchOptions options, Receiver receiver, Postgres postgres) throws Exception {
        this(options, receiver, postgres, null);
    }

    /** The same on a new SQLite file (the embedded store's pool and settings), one node. */
    static IdemContender sqlite(BenchOptions options, Receiver receiver, java.nio.file.Path file) throws Exception {
        return new IdemContender(options, receiver, null, file);
    }

    private IdemContender(BenchOptions options, Receiver receiver, Postgres postgres, java.nio.file.Path sqliteFile)
            throws Exception {
        super(options, receiver);
        this.postgres = postgres;
        this.database = options.dbPrefix();
        if (postgres != null) postgres.recreate(database);
        try {
            if (postgres == null)
                stores.add(JdbcStores.open(
                        StoreConfig.of("jdbc:sqlite:" + sqliteFile, null, null).withMasterKeys(BenchKeys.KEYS), clock));
            else
                for (int node = 0; node < options.nodes(); node++)
                    stores.add(JdbcStores.open(
                            new StoreConfig(
                                    postgres.url(database),
                                    options.user(),
                                    options.password(),
                                    options.idemPool(),
                                    true,
                                    BenchKeys.KEYS),
                            clock));
            store = stores.get(0);
            Instant now = clock.instant();
            IdGenerator ids = IdGenerator.system();
            Project project = new Project(ids.next("proj"), "bench", now);
            tenant = new Tenant(project.id(), Mode.TEST);
            secret = SigningSecret.generate(new SecureRandom());
            store.useTransaction(tx -> {
                tx.projects().insert(project);
                tx.signingSecrets().save(new SigningSecrets(tenant, secret));
            });
            // each node its own id (it owns the leases it claims) and its own meters (its own counters)
            for (int node = 0; node < stores.size(); node++) {
                EngineConfig config = EngineConfig.builder()
                        .nodeId("bench-" + ProcessHandle.current().pid() + (stores.size() > 1 ? "-" + node : ""))
                        .allowPrivateEndpoints(true)
                        .batchSize(options.idemBatch())
                        .maxInFlight(options.idemMaxInFlight())
                        .build();
                SimpleMeterRegistry m = new SimpleMeterRegistry();
                Engine engine = new Engine(stores.get(node), config, clock, new SecureRandom(), m);
                engines.add(engine);
                meters.add(m);
                engine.start();
            }
        } catch (Exception e) {
            close();
            throw e;
        }
    }

    @Override
    String name() {
        return "idem";
    }

    /** The first node's store (it writes the schedules). */
    Store store() {
        return store;
    }

    /** The one tenant every schedule of the run belongs to. */
    Tenant tenant() {
        return tenant;
    }

    @Override
    SigningSecret secret() {
        return secret;
    }

    @Override
    void write(String label, String endpoint, int from, int to, IntFunction<Instant> due) {
        IdGenerator ids = new IdGenerator(clock, new SplittableRandom());
        store.useTransaction(tx -> {
            Instant now = clock.instant();
            for (int i = from; i < to; i++) {
                Instant fireAt = due.apply(i);
                ScheduleDefinition def = ScheduleDefinition.builder(endpoint, new Timing.Once(fireAt))
                        .build();
                Schedule s =
                        new Schedule(ids.next("sch"), tenant, ScheduleStatus.ACTIVE, def, fireAt, 0, null, 0, now, now);
                Materialisation.Plan plan = Materialisation.forNew(s, fireAt, ids, now);
                tx.schedules().insert(plan.advanced(now));
                if (!tx.deliveries().insertIfAbsent(plan.deliveries().get(0)))
                    throw new IllegalStateException("schedule " + s.id() + " wrote no delivery");
            }
            tx.notifyDeliveriesDue();
        });
    }

    @Override
    long[] completedByNode() {
        long[] out = new long[meters.size()];
        for (int i = 0; i < out.length; i++) {
            Counter c = meters.get(i)
                    .find("idem.deliveries")
                    .tag("outcome", "succeeded")
                    .counter();
            out[i] = c == null ? 0 : (long) c.count();
        }
        return out;
    }

    @Override
    long pending() {
        return store.queue().depth();
    }

    @Override
    long purge() throws Exception {
        if (postgres == null) throw new UnsupportedOperationException("purging is for the PostgreSQL runs");
        return postgres.update(
                database,
                "UPDATE deliveries SET status = 'cancelled', next_attempt_at = NULL "
                        + "WHERE status IN ('scheduled', 'retrying')");
    }

    @Override
    void between() throws Exception {
        if (postgres == null) return;
        postgres.execute(database, "VACUUM ANALYZE deliveries", "VACUUM ANALYZE schedules", "VACUUM ANALYZE attempts");
    }

    @Override
    public void close() throws Exception {
        try {
            closeAll(engines);
        } finally {
            closeAll(stores);
        }
    }
}

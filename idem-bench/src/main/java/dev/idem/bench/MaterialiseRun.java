package dev.idem.bench;

import dev.idem.core.CatchUp;
import dev.idem.core.IdGenerator;
import dev.idem.core.Mode;
import dev.idem.core.Project;
import dev.idem.core.Schedule;
import dev.idem.core.ScheduleDefinition;
import dev.idem.core.ScheduleStatus;
import dev.idem.core.Tenant;
import dev.idem.core.Timing;
import dev.idem.core.recurrence.RecurrenceSpec;
import dev.idem.core.store.Store;
import dev.idem.engine.internal.Materialiser;
import dev.idem.store.JdbcStores;
import dev.idem.store.StoreConfig;
import java.nio.file.Files;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/**
 * How fast the materialiser writes N cron schedules ({@code 0 9 * * *}, each with its own endpoint, so no two
 * definitions are the same text) that share their next instant, per page size: the measurement behind the
 * materialiser's page size and horizon (idem-engine/README.md). Each page size gets a fresh database; time stands
 * still at 08:59:30 while one run after another writes every row. Prints wall time and CPU (this JVM, and all
 * PostgreSQL processes of the machine). Not a test.
 *
 * <p>{@code java -cp idem-bench/target/idem-bench.jar dev.idem.bench.MaterialiseRun [n] [pages,…] [postgresql|sqlite] [--db PREFIX]}
 */
public final class MaterialiseRun {
    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        String pages = args.length > 1 ? args[1] : "100,250,500,1000,2000";
        String dialect = args.length > 2 ? args[2] : "postgresql";
        String db = args.length > 4 && args[3].equals("--db") ? args[4] : "idem_bench_massdue";
        BenchOptions options = BenchOptions.parse(new String[] {"--db", db});
        Postgres postgres = new Postgres(options);
        Instant t0 = Instant.parse("2030-01-01T08:00:00Z");
        for (String p : pages.split(",")) {
            int page = Integer.parseInt(p);
            MutableClock clock = new MutableClock(t0);
            Store store;
            if (dialect.equals("sqlite")) {
                store = JdbcStores.open(StoreConfig.sqlite(Files.createTempDirectory("materialise-run")), clock);
            } else {
                postgres.recreate(db);
                store = JdbcStores.open(
                        new StoreConfig(postgres.url(db), options.user(), options.password(), 4, false, BenchKeys.KEYS),
                        clock);
            }
            try {
                IdGenerator ids = new IdGenerator(clock, new SecureRandom());
                Project project = new Project(ids.next("proj"), "bench", t0);
                store.useTransaction(tx -> tx.projects().insert(project));
                Tenant tenant = new Tenant(project.id(), Mode.TEST);
                Timing cron = new Timing.Recurring(RecurrenceSpec.cron("0 9 * * *", ZoneId.of("UTC")), CatchUp.LATEST);
                Instant nine = Instant.parse("2030-01-01T09:00:00Z");
                for (int from = 0; from < n; from += 5_000) {
                    List<Schedule> chunk = new ArrayList<>();
                    for (int i = from; i < Math.min(n, from + 5_000); i++) {
                        ScheduleDefinition def = ScheduleDefinition.builder("https://example.com/tenant/" + i, cron)
                                .timeout(Duration.ofSeconds(30))
                                .autoPauseAfter(5)
                                .build();
                        chunk.add(new Schedule(
                                ids.next("sch"), tenant, ScheduleStatus.ACTIVE, def, nine, 0, null, 0, t0, t0));
                    }
                    store.useTransaction(tx -> tx.schedules().insertAll(chunk));
                }
                if (!dialect.equals("sqlite")) postgres.execute(db, "VACUUM ANALYZE schedules");
                clock.now = Instant.parse("2030-01-01T08:59:30Z");
                Materialiser m = new Materialiser(store, ids, clock, Duration.ofSeconds(60), () -> {}, page);
                String load = MassDue.load();
                CpuUse before = CpuUse.sample();
                int written = 0;
                for (int w; (w = m.runOnce()) > 0; ) written += w;
                CpuUse.Span cpu = before.until(CpuUse.sample());
                System.out.printf(
                        "%s page %5d: %,d rows in %.2f s = %,.0f rows/s; CPU per row: JVM %.0f µs, PostgreSQL (all) %.0f µs (%s at start)%n",
                        dialect,
                        page,
                        written,
                        cpu.seconds(),
                        written / cpu.seconds(),
                        cpu.jvmCores() * cpu.seconds() * 1e6 / written,
                        cpu.postgresCores() * cpu.seconds() * 1e6 / written,
                        load);
            } finally {
                store.close();
                if (!dialect.equals("sqlite")) postgres.drop(db);
            }
        }
        System.exit(0);
    }

    /** Time that moves only when told. */
    static final class MutableClock extends Clock {
        volatile Instant now;

        MutableClock(Instant now) {
            this.now = now;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }
}

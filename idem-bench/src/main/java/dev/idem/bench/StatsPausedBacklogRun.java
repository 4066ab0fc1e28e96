package dev.idem.bench;

import dev.idem.core.IdGenerator;
import dev.idem.core.Schedule;
import dev.idem.core.Tenant;
import dev.idem.core.store.Store;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * What {@code GET /v1/stats} costs beside a backlog it must not count: a tenant with {@code n} due deliveries held by
 * pauses (each of its own paused one-shot, as an endpoint's disabling leaves its messages' deliveries) that fell due
 * before its {@value #ACTIVE} claimable ones, read by that tenant (its own paused backlog) and by another tenant with
 * {@value #ACTIVE} claimable ones of its own (someone else's backlog), then again once that tenant has {@code n}
 * finished deliveries of its own (history beside someone else's backlog). The paused rows are copied by SQL from one
 * written through the store ({@link HistorySql#copy}). PostgreSQL (a database of its own, dropped after) and SQLite (a
 * file in a temporary directory).
 * {@code java -cp idem-bench/target/idem-bench.jar dev.idem.bench.StatsPausedBacklogRun [pgBacklog] [sqliteBacklog]}
 */
public final class StatsPausedBacklogRun {
    private static final String DATABASE = "idem_stats_paused_backlog";
    private static final int ACTIVE = 5;

    private StatsPausedBacklogRun() {}

    public static void main(String[] args) throws Exception {
        long pg = args.length > 0 ? Long.parseLong(args[0]) : 200_000;
        long sqlite = args.length > 1 ? Long.parseLong(args[1]) : 200_000;
        System.out.printf(Locale.ROOT, "load before: %s%n", Report.loadAverage());
        StatsHistoryRun.onBothStores(
                DATABASE,
                (store, c) -> run("PostgreSQL", store, c, false, pg, "VACUUM ANALYZE"),
                (store, c) -> run("SQLite", store, c, true, sqlite, "ANALYZE"));
        System.out.printf(Locale.ROOT, "load after: %s%n", Report.loadAverage());
    }

    private static void run(String name, Store store, Connection c, boolean sqlite, long n, String analyse)
            throws Exception {
        Clock clock = Clock.systemUTC();
        IdGenerator ids = new IdGenerator(clock, new SplittableRandom());
        Instant now = clock.instant();
        Tenant held = BenchTenants.tenant(store, ids, now, "held");
        Tenant other = BenchTenants.tenant(store, ids, now, "other");
        for (int i = 0; i < ACTIVE; i++) {
            BenchTenants.oneShot(store, ids, held, now.minus(Duration.ofMinutes(1)), false);
            BenchTenants.oneShot(store, ids, other, now.minus(Duration.ofMinutes(1)), false);
        }
        // the backlog fell due an hour ago, before every claimable row: a read in due order meets it first
        Schedule paused = BenchTenants.oneShot(store, ids, held, now.minus(Duration.ofHours(1)), true);
        String template;
        try (Statement s = c.createStatement();
                var rs = s.executeQuery("SELECT id FROM deliveries WHERE schedule_id = '" + paused.id() + "'")) {
            rs.next();
            template = rs.getString(1);
        }
        System.out.printf(
                Locale.ROOT,
                "%s, no backlog: held tenant's stats read %s; other tenant's %s%n",
                name,
                StatsHistoryRun.latency(() -> BenchTenants.dashboardStats(store, held)),
                StatsHistoryRun.latency(() -> BenchTenants.dashboardStats(store, other)));
        long t0 = System.nanoTime();
        HistorySql.copy(c, sqlite, "schedules", paused.id(), Map.of("id", "t.id || '-p' || g"), 1, n);
        HistorySql.copy(
                c,
                sqlite,
                "deliveries",
                template,
                Map.of(
                        "id", "t.id || '-p' || g",
                        "schedule_id", "t.schedule_id || '-p' || g",
                        "next_attempt_at", "t.next_attempt_at + g",
                        "scheduled_for", "t.scheduled_for + g"),
                1,
                n);
        StatsHistoryRun.exec(c, analyse);
        System.out.printf(
                Locale.ROOT,
                "%s, %,d due deliveries of paused one-shots written and analysed in %.0f s%n",
                name,
                n,
                (System.nanoTime() - t0) / 1e9);
        System.out.printf(
                Locale.ROOT,
                "%s, %,d paused due: held tenant's stats read (its own paused backlog) %s; it returned %s%n",
                name,
                n,
                StatsHistoryRun.latency(() -> BenchTenants.dashboardStats(store, held)),
                BenchTenants.dashboardStats(store, held));
        System.out.printf(
                Locale.ROOT,
                "%s, %,d paused due: other tenant's stats read (another tenant's backlog) %s; it returned %s%n",
                name,
                n,
                StatsHistoryRun.latency(() -> BenchTenants.dashboardStats(store, other)),
                BenchTenants.dashboardStats(store, other));
        // the other tenant's own history beside that backlog: its rows are the other way to reach its due ones
        String finished;
        try (Statement s = c.createStatement();
                var rs = s.executeQuery("SELECT d.id FROM deliveries d JOIN schedules s ON s.id = d.schedule_id "
                        + "WHERE s.project_id = '" + other.projectId() + "' LIMIT 1")) {
            rs.next();
            finished = rs.getString(1);
        }
        t0 = System.nanoTime();
        HistorySql.copy(
                c,
                sqlite,
                "deliveries",
                finished,
                Map.of(
                        "id", "t.id || '-f' || g",
                        "scheduled_for", "t.scheduled_for - g",
                        "status", "'succeeded'",
                        "next_attempt_at", "NULL"),
                1,
                n);
        StatsHistoryRun.exec(c, analyse);
        System.out.printf(
                Locale.ROOT,
                "%s, %,d finished deliveries of the other tenant written and analysed in %.0f s%n",
                name,
                n,
                (System.nanoTime() - t0) / 1e9);
        System.out.printf(
                Locale.ROOT,
                "%s, %,d paused due, %,d finished: other tenant's stats read %s; it returned %s%n",
                name,
                n,
                n,
                StatsHistoryRun.latency(() -> BenchTenants.dashboardStats(store, other)),
                BenchTenants.dashboardStats(store, other));
    }
}

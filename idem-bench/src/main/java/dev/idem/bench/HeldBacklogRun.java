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
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Supplier;

/**
 * What a claim costs beside a backlog it must not take: a tenant with {@code n} due deliveries held by pauses (each of
 * its own paused one-shot, as an endpoint's disabling leaves its messages' deliveries), due an hour ago, ahead of a
 * healthy tenant's claimable rows due a minute ago. Measured with no held row, then with {@code n}: a claim of
 * {@value #CLAIM} of the healthy tenant's rows ({@value #CLAIMS} claims, each taking rows no earlier claim took),
 * {@code nextDueAt}, and the healthy tenant's stats read (lag and depth). The rows are copied by SQL from ones written
 * through the store ({@link HistorySql#copy}). PostgreSQL (a database of its own, dropped after) and SQLite (a file in a
 * temporary directory).
 * {@code java -cp idem-bench/target/idem-bench.jar dev.idem.bench.HeldBacklogRun [pgHeld] [sqliteHeld]}
 */
public final class HeldBacklogRun {
    private static final String DATABASE = "idem_held_backlog";
    private static final int CLAIM = 100;
    private static final int CLAIMS = 40;
    private static final int READS = 50;
    private static final int LEFT = 1_000;

    private HeldBacklogRun() {}

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
        IdGenerator ids = new IdGenerator(Clock.systemUTC(), new SplittableRandom());
        Instant now = Instant.now();
        Tenant healthy = BenchTenants.tenant(store, ids, now, "healthy");
        Tenant held = BenchTenants.tenant(store, ids, now, "held");
        Schedule ready = BenchTenants.oneShot(store, ids, healthy, now.minus(Duration.ofMinutes(1)), false);
        // enough claimable rows for both phases' claims (and a warm-up claim each), each of its own one-shot, with
        // some left after them
        copyOneShots(c, sqlite, ready.id(), "-h", 2L * (CLAIMS + 1) * CLAIM + LEFT);
        StatsHistoryRun.exec(c, analyse);
        measure(name, "0 held", store, healthy);

        Schedule paused = BenchTenants.oneShot(store, ids, held, now.minus(Duration.ofHours(1)), true);
        long t0 = System.nanoTime();
        copyOneShots(c, sqlite, paused.id(), "-p", n);
        StatsHistoryRun.exec(c, analyse);
        System.out.printf(
                Locale.ROOT,
                "%s, %,d due deliveries of paused one-shots written and analysed in %.0f s%n",
                name,
                n,
                (System.nanoTime() - t0) / 1e9);
        measure(name, String.format(Locale.ROOT, "%,d held", n), store, healthy);
    }

    /** The reads first, while the healthy tenant's rows are still due; then the claims, which take them. */
    private static void measure(String name, String phase, Store store, Tenant healthy) {
        System.out.printf(
                Locale.ROOT,
                "%s, %s: nextDueAt %s; it returned %s%n",
                name,
                phase,
                percentiles(READS, () -> store.queue().nextDueAt()),
                store.queue().nextDueAt());
        System.out.printf(
                Locale.ROOT,
                "%s, %s: healthy tenant's stats read %s; it returned %s%n",
                name,
                phase,
                percentiles(READS, () -> BenchTenants.dashboardStats(store, healthy)),
                BenchTenants.dashboardStats(store, healthy));
        int[] claimed = new int[1];
        String claims = percentiles(
                CLAIMS,
                () -> claimed[0] += store.queue()
                        .claimDue("bench", Duration.ofMinutes(10), CLAIM)
                        .size());
        System.out.printf(
                Locale.ROOT,
                "%s, %s: claim of %d %s (%,d rows claimed in all, the warm-up's included)%n",
                name,
                phase,
                CLAIM,
                claims,
                claimed[0]);
    }

    /** Median, p99 and max of {@code times} calls, after one unmeasured call. */
    private static String percentiles(int times, Supplier<?> call) {
        call.get();
        double[] ms = new double[times];
        for (int i = 0; i < times; i++) {
            long t0 = System.nanoTime();
            call.get();
            ms[i] = (System.nanoTime() - t0) / 1e6;
        }
        Arrays.sort(ms);
        return String.format(
                Locale.ROOT,
                "median %.2f ms, p99 %.2f ms, max %.2f ms (%d calls)",
                ms[times / 2],
                ms[(int) Math.ceil(times * 0.99) - 1],
                ms[times - 1],
                times);
    }

    /** {@code n} copies of one-shot {@code scheduleId} and its one delivery, each copy due a millisecond later. */
    private static void copyOneShots(Connection c, boolean sqlite, String scheduleId, String suffix, long n)
            throws Exception {
        String template;
        try (Statement s = c.createStatement();
                var rs = s.executeQuery("SELECT id FROM deliveries WHERE schedule_id = '" + scheduleId + "'")) {
            rs.next();
            template = rs.getString(1);
        }
        HistorySql.copy(c, sqlite, "schedules", scheduleId, Map.of("id", "t.id || '" + suffix + "' || g"), 1, n);
        HistorySql.copy(
                c,
                sqlite,
                "deliveries",
                template,
                Map.of(
                        "id",
                        "t.id || '" + suffix + "' || g",
                        "schedule_id",
                        "t.schedule_id || '" + suffix + "' || g",
                        "next_attempt_at",
                        "t.next_attempt_at + g",
                        "scheduled_for",
                        "t.scheduled_for + g"),
                1,
                n);
    }
}

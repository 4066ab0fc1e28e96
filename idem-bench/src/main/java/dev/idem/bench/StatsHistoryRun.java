package dev.idem.bench;

import dev.idem.core.Attempt;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.IdGenerator;
import dev.idem.core.Tenant;
import dev.idem.core.store.DeliveryQueue;
import dev.idem.core.store.Store;
import dev.idem.store.JdbcStores;
import dev.idem.store.StoreConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.function.Supplier;

/**
 * What {@code GET /v1/stats} costs with history: the store read behind it (every counter the endpoint returns) on an
 * empty store and after {@code n} finished deliveries of history, one in {@code deadEvery} of them dead, written by
 * {@link HistorySql} (deliveries only: the read touches no other table of history), ten days old, so none falls in
 * the counters' window; beside it, in the same run, an exact count of the dead-letter queue (what the read did
 * before its counts stopped at {@link dev.idem.core.store.StatsRepository#COUNT_LIMIT}). PostgreSQL (a database of
 * its own, dropped after) and SQLite (a file in a temporary directory).
 * {@code java -cp idem-bench/target/idem-bench.jar dev.idem.bench.StatsHistoryRun [pgHistory] [sqliteHistory] [deadEvery]}
 */
public final class StatsHistoryRun {
    private static final String DATABASE = "idem_stats_history";
    private static final String DEAD_COUNT =
            "SELECT COUNT(*) FROM deliveries WHERE status = 'dead' AND project_id = ? AND mode = ?";

    private StatsHistoryRun() {}

    public static void main(String[] args) throws Exception {
        long pg = args.length > 0 ? Long.parseLong(args[0]) : 5_000_000;
        long sqlite = args.length > 1 ? Long.parseLong(args[1]) : 1_000_000;
        long deadEvery = args.length > 2 ? Long.parseLong(args[2]) : 100;
        System.out.printf(Locale.ROOT, "load before: %s%n", Report.loadAverage());
        onBothStores(
                DATABASE,
                (store, c) -> run("PostgreSQL", store, c, false, pg, deadEvery, () -> exec(c, "VACUUM ANALYZE")),
                (store, c) -> run("SQLite", store, c, true, sqlite, deadEvery, () -> exec(c, "ANALYZE")));
        System.out.printf(Locale.ROOT, "load after: %s%n", Report.loadAverage());
    }

    /** What a run does with a store and a connection of its own to the store's database. */
    interface OnStore {
        void run(Store store, Connection c) throws Exception;
    }

    /**
     * Runs {@code postgres} on a PostgreSQL database {@code database} of its own (dropped after), then {@code sqlite}
     * on a store in a temporary directory (deleted after).
     */
    static void onBothStores(String database, OnStore postgres, OnStore sqlite) throws Exception {
        BenchOptions options = BenchOptions.parse(new String[] {"--db", database, "--only", "idem"});
        Postgres pg = new Postgres(options);
        pg.recreate(database);
        try (Store store = JdbcStores.open(
                        new StoreConfig(
                                pg.url(database),
                                options.user(),
                                options.password(),
                                options.idemPool(),
                                true,
                                BenchKeys.KEYS),
                        Clock.systemUTC());
                Connection c = pg.connect(database)) {
            postgres.run(store, c);
        } finally {
            pg.drop(database);
        }
        Path dir = Files.createTempDirectory(database);
        try (Store store = JdbcStores.open(StoreConfig.sqlite(dir), Clock.systemUTC());
                Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(StoreConfig.SQLITE_FILE))) {
            exec(c, "PRAGMA busy_timeout = 10000");
            sqlite.run(store, c);
        } finally {
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder())
                        .forEach(p -> p.toFile().delete());
            }
        }
    }

    private static void run(
            String name, Store store, Connection c, boolean sqlite, long n, long deadEvery, ThrowingRunnable analyse)
            throws Exception {
        Tenant tenant = template(store);
        System.out.printf(
                Locale.ROOT,
                "%s, empty store (one delivery): stats read %s%n",
                name,
                latency(() -> BenchTenants.dashboardStats(store, tenant)));
        long t0 = System.nanoTime();
        HistorySql.insert(
                c,
                sqlite,
                n,
                Instant.now().minus(Duration.ofDays(10)).toEpochMilli(),
                Duration.ofDays(1).toMillis(),
                deadEvery,
                true);
        analyse.run();
        System.out.printf(
                Locale.ROOT,
                "%s, %,d deliveries of history written and analysed in %.0f s (%,d dead)%n",
                name,
                n,
                (System.nanoTime() - t0) / 1e9,
                deadEvery > 0 ? n / deadEvery : 0);
        System.out.printf(
                Locale.ROOT,
                "%s, %,d deliveries of history: stats read %s; it returned %s%n",
                name,
                n,
                latency(() -> BenchTenants.dashboardStats(store, tenant)),
                BenchTenants.dashboardStats(store, tenant));
        System.out.printf(
                Locale.ROOT,
                "%s, %,d deliveries of history: an exact count of the dead-letter queue alone (the read before its cap) %s%n",
                name,
                n,
                latency(() -> {
                    try (PreparedStatement p = c.prepareStatement(DEAD_COUNT)) {
                        p.setString(1, tenant.projectId());
                        p.setString(2, "test");
                        try (ResultSet rs = p.executeQuery()) {
                            rs.next();
                            return rs.getLong(1);
                        }
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }));
    }

    /** Median and max of 50 calls (after 5 unmeasured), in ms. */
    static String latency(Supplier<?> call) {
        double[] ms = new double[55];
        for (int i = 0; i < ms.length; i++) {
            long t0 = System.nanoTime();
            call.get();
            ms[i] = (System.nanoTime() - t0) / 1e6;
        }
        double[] measured = Arrays.copyOfRange(ms, 5, ms.length);
        Arrays.sort(measured);
        return String.format(
                Locale.ROOT,
                "median %.2f ms, max %.2f ms (50 reads)",
                measured[measured.length / 2],
                measured[measured.length - 1]);
    }

    /**
     * A project and one one-shot delivered (claimed and recorded succeeded through the queue's ports): the template
     * {@link HistorySql} copies. Returns the project's test tenant.
     */
    private static Tenant template(Store store) {
        Clock clock = Clock.systemUTC();
        IdGenerator ids = new IdGenerator(clock, new SplittableRandom());
        Instant now = clock.instant();
        Tenant tenant = BenchTenants.tenant(store, ids, now, "bench");
        BenchTenants.oneShot(store, ids, tenant, now, false);
        List<DeliveryQueue.Claim> claims = store.queue().claimDue("bench", Duration.ofMinutes(1), 10);
        if (claims.size() != 1) throw new IllegalStateException("claimed " + claims.size() + " template deliveries");
        var d = claims.get(0).delivery();
        Attempt a = new Attempt(ids.next("att"), d.id(), d.attemptCount(), clock.instant(), 3, 200, null, null);
        store.queue()
                .complete("bench", List.of(new DeliveryQueue.Outcome(d.id(), a, DeliveryStatus.SUCCEEDED, null, null)));
        return tenant;
    }

    static void exec(Connection c, String sql) throws Exception {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private interface ThrowingRunnable {
        void run() throws Exception;
    }
}

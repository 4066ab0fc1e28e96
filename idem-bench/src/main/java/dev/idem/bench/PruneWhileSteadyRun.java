package dev.idem.bench;

import dev.idem.engine.internal.EngineMetrics;
import dev.idem.engine.internal.Maintenance;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * Does pruning history compete with the claim path? On a fresh PostgreSQL database holding {@code history} finished
 * one-shots (schedule, delivery, attempt each, written by {@link HistorySql}) that finished 29 days ago, one engine
 * delivers {@code rate} one-shots a second to the loopback receiver, and the run alternates windows of {@code window}
 * seconds (after one unmeasured) without and with the pruner at work: the engine's own {@link Maintenance#prune} (its batches, its order, its
 * rests between batches) under a retention of 28 days, so the history is what it removes, while the node's own
 * pruner (30 days) finds nothing. Each window's lag (due instant to the request read by the receiver) is printed,
 * and the windows of each kind together; the pruner is stopped at the end of its window by an interrupt, as a
 * closing engine stops it.
 * {@code java -cp idem-bench/target/idem-bench.jar dev.idem.bench.PruneWhileSteadyRun [history] [rate] [windows] [window]}
 */
public final class PruneWhileSteadyRun {
    /** How long before its first delivery is due a chunk of the steady run is written. */
    private static final Duration WRITE_AHEAD = Duration.ofSeconds(5);

    private PruneWhileSteadyRun() {}

    public static void main(String[] args) throws Exception {
        long history = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000;
        int rate = args.length > 1 ? Integer.parseInt(args[1]) : 300;
        int windows = args.length > 2 ? Integer.parseInt(args[2]) : 6;
        int window = args.length > 3 ? Integer.parseInt(args[3]) : 15;
        BenchOptions options = BenchOptions.parse(new String[] {"--db", "idem_prune", "--only", "idem"});
        Postgres postgres = new Postgres(options);
        System.out.printf(
                Locale.ROOT,
                "prune while steady: %,d finished one-shots of history (a day at %,d/s would be %,d), %d/s steady, "
                        + "%d windows of %d s, without and with pruning in turn; load before: %s%n",
                history,
                rate,
                rate * 86_400L,
                rate,
                windows,
                window,
                Report.loadAverage());
        try (Receiver receiver = new Receiver(options.jdkReceiver(), options.receiverThreads());
                IdemContender idem = new IdemContender(options, receiver, postgres);
                Connection c = postgres.connect(options.dbPrefix())) {
            Phase template = idem.burst("template", 1);
            if (template.completed() != 1) throw new IllegalStateException("the template one-shot was not delivered");
            long day = Duration.ofDays(1).toMillis();
            long from = Instant.now().minus(Duration.ofDays(29)).toEpochMilli();
            HistorySql.insert(c, false, history, from, day, 0, false);
            try (Statement s = c.createStatement()) {
                s.execute("VACUUM ANALYZE");
            }
            System.out.printf(
                    Locale.ROOT,
                    "  database after VACUUM ANALYZE: %,d bytes%n",
                    one(c, "SELECT pg_database_size(current_database())"));

            Maintenance pruner = new Maintenance(
                    idem.store(),
                    Clock.systemUTC(),
                    Duration.ofDays(28),
                    new EngineMetrics(new SimpleMeterRegistry()),
                    () -> {});
            // a first window unmeasured: the engine's first claims of the steady run, whatever the pruner does
            int warmUp = window;
            int n = rate * (warmUp + windows * window);
            Receiver.Tally tally = receiver.begin(n, idem.secret());
            // written as they come, a chunk some seconds before it is due (as an API's callers would): a backlog
            // written all ahead would sit in the due index the claims read
            Instant start = Instant.now().plusSeconds(5).truncatedTo(ChronoUnit.SECONDS);
            java.util.concurrent.atomic.AtomicLong late = new java.util.concurrent.atomic.AtomicLong();
            Thread writer = new Thread(
                    () -> {
                        for (int i = 0; i < n; i += Contender.WRITE_CHUNK) {
                            int f = i;
                            Instant due = start.plusMillis(f * 1000L / rate);
                            long wait = Duration.between(Instant.now(), due.minus(WRITE_AHEAD))
                                    .toMillis();
                            try {
                                if (wait > 0) Thread.sleep(wait);
                            } catch (InterruptedException e) {
                                return;
                            }
                            if (Instant.now().isAfter(due)) late.incrementAndGet();
                            idem.write(
                                    "steady",
                                    receiver.url(),
                                    f,
                                    Math.min(n, f + Contender.WRITE_CHUNK),
                                    k -> start.plusMillis(k * 1000L / rate));
                        }
                    },
                    "bench-writer");
            writer.start();
            Thread.sleep(Math.max(0, Duration.between(Instant.now(), start).toMillis()));

            System.out.printf(
                    Locale.ROOT,
                    "  %-6s %-8s %8s %9s %9s %9s %9s %12s %10s%n",
                    "window",
                    "pruning",
                    "arrived",
                    "p50 ms",
                    "p99 ms",
                    "p99.9 ms",
                    "max ms",
                    "rows pruned",
                    "pruned/s");
            Histogram[] byKind = {null, null};
            Thread.sleep(Math.max(
                    0,
                    Duration.between(Instant.now(), start.plusSeconds(warmUp)).toMillis()));
            Histogram before = tally.lag();
            for (int w = 0; w < windows; w++) {
                boolean pruning = w % 2 == 1;
                Instant end = start.plusSeconds(warmUp + (long) (w + 1) * window);
                java.util.concurrent.atomic.AtomicLong pruned = new java.util.concurrent.atomic.AtomicLong();
                Thread worker = null;
                if (pruning) {
                    worker = new Thread(() -> pruned.set(pruner.prune()), "bench-pruner");
                    worker.start();
                }
                Thread.sleep(Math.max(0, Duration.between(Instant.now(), end).toMillis()));
                if (worker != null) {
                    worker.interrupt();
                    worker.join();
                }
                Histogram after = tally.lag();
                Histogram inWindow = after.copy();
                inWindow.subtract(before);
                before = after;
                int kind = pruning ? 1 : 0;
                if (byKind[kind] == null) byKind[kind] = inWindow.copy();
                else byKind[kind].add(inWindow);
                System.out.printf(
                        Locale.ROOT,
                        "  %-6d %-8s %,8d %9.2f %9.2f %9.2f %9.2f %,12d %,10.0f%n",
                        w + 1,
                        pruning ? "yes" : "no",
                        inWindow.getTotalCount(),
                        inWindow.getValueAtPercentile(50) / 1e3,
                        inWindow.getValueAtPercentile(99) / 1e3,
                        inWindow.getValueAtPercentile(99.9) / 1e3,
                        inWindow.getMaxValue() / 1e3,
                        pruned.get(),
                        pruned.get() / (double) window);
            }
            for (int kind = 0; kind < 2; kind++) {
                Histogram h = byKind[kind];
                if (h == null) continue;
                System.out.printf(
                        Locale.ROOT,
                        "  %s: %,d arrived, lag p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max %.2f ms%n",
                        kind == 0 ? "windows without pruning" : "windows with pruning   ",
                        h.getTotalCount(),
                        h.getValueAtPercentile(50) / 1e3,
                        h.getValueAtPercentile(99) / 1e3,
                        h.getValueAtPercentile(99.9) / 1e3,
                        h.getMaxValue() / 1e3);
            }
            writer.join();
            if (late.get() > 0)
                System.out.printf(
                        Locale.ROOT, "  WRITER FELL BEHIND: %,d chunks written after they were due%n", late.get());
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (tally.unique() < n && System.nanoTime() < deadline) Thread.sleep(50);
            System.out.printf(
                    Locale.ROOT,
                    "  steady deliveries: %,d of %,d arrived, %,d duplicates, %,d early; history left: %,d deliveries, %,d schedules; load after: %s%n",
                    tally.unique(),
                    n,
                    tally.duplicates(),
                    tally.early(),
                    one(c, "SELECT count(*) FROM deliveries WHERE id LIKE '%-h%'"),
                    one(c, "SELECT count(*) FROM schedules WHERE id LIKE '%-h%'"),
                    Report.loadAverage());
        } finally {
            postgres.drop(options.dbPrefix());
        }
    }

    private static long one(Connection c, String sql) throws Exception {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}

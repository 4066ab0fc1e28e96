package dev.idem.bench;

import java.io.PrintStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The end-to-end benchmark: Idem and db-scheduler, one node each on PostgreSQL, delivering signed webhooks to
 * the same loopback receiver in the same run. For each contender: a warm-up burst (not reported), the measured
 * bursts (every delivery due at once; deliveries per second from the due instant to the last 2xx recorded), then
 * a steady run (lag percentiles from due time to arrival). Prints the figures and Idem/db-scheduler ratios. Stops
 * by itself; see {@code idem-bench/README.md}.
 */
public final class Bench {
    private Bench() {}

    public static void main(String[] args) throws Exception {
        BenchOptions options;
        try {
            options = BenchOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        Report report = run(options, System.out);
        System.exit(report.allExactlyOnce() ? 0 : 1);
    }

    /** Runs the benchmark described by {@code options}, printing progress and the summary to {@code out}. */
    public static Report run(BenchOptions options, PrintStream out) throws Exception {
        out.println(environment());
        List<Phase> phases = new ArrayList<>();
        java.util.Map<SignedPost.Http, WireFigure> wire = new java.util.EnumMap<>(SignedPost.Http.class);
        Postgres postgres = new Postgres(options);
        try (Receiver receiver = new Receiver(options.jdkReceiver(), options.receiverThreads())) {
            if (options.wireRequests() > 0) {
                for (SignedPost.Http http : SignedPost.Http.values()) // warm each client and the receiver
                WireBaseline.run(receiver, Math.min(options.wireRequests(), 5_000), 64, http);
                for (int round = 0; round < 2; round++) {
                    for (SignedPost.Http http : SignedPost.Http.values()) {
                        double rate = WireBaseline.run(receiver, options.wireRequests(), 64, http);
                        WireFigure f = new WireFigure(rate, WireBaseline.lastJvmMicrosPerRequest);
                        wire.merge(http, f, (a, b) -> a.rate() >= b.rate() ? a : b);
                    }
                }
                out.printf(
                        "wire baseline (no database, 64 threads, %s receiver, best of two rounds per client):%n",
                        options.jdkReceiver() ? "JDK HttpServer" : "socket");
                wire.forEach((http, f) -> out.printf(
                        "  %-20s %,8.0f signed POSTs/s, JVM CPU per request (client + receiver) %.0f µs%n",
                        http.label(), f.rate(), f.jvmMicros()));
            }
            // phases alternate between the contenders (A B A B…) so a change in the machine's background load
            // during the run falls on both, and each ratio compares runs minutes apart at most
            warnIfPoolsExceed(out, options, postgres);
            List<Contender> contenders = new ArrayList<>();
            try {
                for (String name : options.contenders())
                    contenders.add(
                            name.equals("idem")
                                    ? new IdemContender(options, receiver, postgres)
                                    : new DbSchedulerContender(
                                            options,
                                            receiver,
                                            postgres,
                                            name.equals("db-scheduler")
                                                    ? SignedPost.Http.JDK
                                                    : SignedPost.Http.APACHE));
                if (options.warmup() > 0 && !contenders.isEmpty()) {
                    out.println("== warm-up (not a result: the JIT settles over tens of thousands of deliveries)");
                    for (Contender c : contenders) phases.add(print(out, c.burst("warmup", options.warmup())));
                }
                List<String> burstLabels = Report.burstLabels(options.bursts());
                for (int i = 0; i < (contenders.isEmpty() ? 0 : burstLabels.size()); i++) {
                    int n = options.bursts().get(i);
                    out.printf("== %,d due at once%n", n);
                    for (Contender c : contenders) {
                        c.between();
                        phases.add(print(out, c.burst(burstLabels.get(i), n)));
                    }
                }
                if (options.steadySeconds() > 0 && !contenders.isEmpty()) {
                    out.printf("== steady %,d/s for %d s%n", options.steadyRate(), options.steadySeconds());
                    for (Contender c : contenders) {
                        c.between();
                        phases.add(print(
                                out,
                                c.steady(
                                        "steady" + options.steadyRate(),
                                        options.steadyRate(),
                                        options.steadySeconds())));
                    }
                }
                if (options.slowDue() > 0 && !contenders.isEmpty()) {
                    out.printf(
                            "== one destination answering in %d ms, %,d due at once%n",
                            options.slowMillis(), options.slowDue());
                    try (Receiver slow = Receiver.answeringAfter(java.time.Duration.ofMillis(options.slowMillis()))) {
                        for (Contender c : contenders) {
                            c.between();
                            phases.add(print(out, c.burstTo("slow" + options.slowMillis(), options.slowDue(), slow)));
                        }
                    }
                }
                if (options.hangingDue() > 0 && options.steadySeconds() > 0 && !contenders.isEmpty()) {
                    out.printf(
                            "== %,d due at once to a destination that never answers, beside a healthy one at %d/s for %d s%n",
                            options.hangingDue(), options.healthyRate(), options.steadySeconds());
                    for (Contender c : contenders) {
                        c.between();
                        try (Receiver hanging = Receiver.hanging()) {
                            phases.add(print(
                                    out,
                                    c.steadyBesideHanging(
                                            "healthy" + options.healthyRate(),
                                            options.healthyRate(),
                                            options.steadySeconds(),
                                            receiver,
                                            hanging,
                                            options.hangingDue())));
                        }
                    }
                }
                if (options.sameHostDue() > 0 && options.steadySeconds() > 0 && !contenders.isEmpty()) {
                    out.printf(
                            "== %,d due at once to a path that never answers, beside a healthy path of the same host and port at %d/s for %d s%n",
                            options.sameHostDue(), options.healthyRate(), options.steadySeconds());
                    for (Contender c : contenders) {
                        c.between();
                        try (Receiver sameHost = Receiver.sameHost()) {
                            phases.add(print(
                                    out,
                                    c.steadyBesideHanging(
                                            "samehost" + options.healthyRate(),
                                            options.healthyRate(),
                                            options.steadySeconds(),
                                            sameHost,
                                            sameHost,
                                            options.sameHostDue())));
                        }
                    }
                }
            } finally {
                for (Contender c : contenders) {
                    try {
                        c.close();
                    } catch (Exception e) {
                        out.println("closing " + c.name() + " failed: " + e);
                    }
                }
            }
        } finally {
            for (String db : List.of(
                    options.dbPrefix(),
                    DbSchedulerContender.database(options, SignedPost.Http.JDK),
                    DbSchedulerContender.database(options, SignedPost.Http.APACHE))) {
                try {
                    postgres.drop(db);
                } catch (Exception e) {
                    out.println("could not drop database " + db + ": " + e.getMessage());
                }
            }
        }
        Report report = new Report(phases, wire);
        report.print(out, options);
        return report;
    }

    /**
     * Says so when the contenders' pools could together open more connections than the server has free: with
     * {@code --nodes} they add up (a phase would fail with "too many clients" rather than measure anything).
     */
    private static void warnIfPoolsExceed(PrintStream out, BenchOptions options, Postgres postgres) {
        int most = 0;
        for (String c : options.contenders())
            // Idem: its pool plus the liveness connection and the LISTEN connection of each node
            most += options.nodes() * (c.equals("idem") ? options.idemPool() + 2 : DbSchedulerContender.POOL);
        try {
            int free = postgres.connectionsFree();
            if (most > free)
                out.printf(
                        "WARNING: the contenders' pools may open up to %d connections (%d nodes each), the server has %d"
                                + " free: a busy phase may fail to connect%n",
                        most, options.nodes(), free);
        } catch (java.sql.SQLException e) {
            out.println("could not count the server's free connections: " + e.getMessage());
        }
    }

    /** The no-database ceiling of one HTTP client. */
    record WireFigure(double rate, double jvmMicros) {}

    private static Phase print(PrintStream out, Phase p) {
        out.println(Report.line(p));
        out.flush();
        return p;
    }

    static String environment() {
        String load = "n/a";
        try {
            load = Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (Exception ignored) {
            // not Linux
        }
        String gcs = ManagementFactory.getGarbageCollectorMXBeans().stream()
                .map(GarbageCollectorMXBean::getName)
                .collect(Collectors.joining(", "));
        return String.format(
                "idem-bench %s | %d cores | Java %s | GC %s | max heap %d MiB | load average at start %s",
                Instant.now(),
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"),
                gcs,
                Runtime.getRuntime().maxMemory() >> 20,
                load);
    }
}

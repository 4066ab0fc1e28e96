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
        Double wire = null;
        Double wireAsync = null;
        Postgres postgres = new Postgres(options);
        try (Receiver receiver = new Receiver(options.jdkReceiver(), options.receiverThreads())) {
            if (options.wireRequests() > 0) {
                WireBaseline.run(receiver, Math.min(options.wireRequests(), 5_000), 64, false); // warm the client and receiver
                WireBaseline.run(receiver, Math.min(options.wireRequests(), 5_000), 64, true);
                wire = WireBaseline.run(receiver, options.wireRequests(), 64, false);
                long sendThreads = WireBaseline.lastThreadsStarted;
                double sendCpu = WireBaseline.lastJvmMicrosPerRequest;
                wireAsync = WireBaseline.run(receiver, options.wireRequests(), 64, true);
                long asyncThreads = WireBaseline.lastThreadsStarted;
                double asyncCpu = WireBaseline.lastJvmMicrosPerRequest;
                out.printf("wire baseline (no database, 64 threads, %s receiver): %,.0f signed POSTs/s with HttpClient.send, "
                        + "%,.0f/s with sendAsync(..).get() as Idem's HttpSender waits%n",
                        options.jdkReceiver() ? "JDK HttpServer" : "socket", wire, wireAsync);
                out.printf("  threads started per request: %.2f with send, %.2f with sendAsync (CompletableFuture's default executor "
                        + "is a new thread per task when the common pool's parallelism is 1, as on 2 cores)%n",
                        sendThreads / (double) options.wireRequests(), asyncThreads / (double) options.wireRequests());
                out.printf("  JVM CPU per request (HttpClient + receiver, no database): %.0f µs with send, %.0f µs with sendAsync%n",
                        sendCpu, asyncCpu);
            }
            // phases alternate between the contenders (A B A B…) so a change in the machine's background load
            // during the run falls on both, and each ratio compares runs minutes apart at most
            List<Contender> contenders = new ArrayList<>();
            try {
                for (String name : options.contenders())
                    contenders.add(name.equals("idem") ? new IdemContender(options, receiver, postgres)
                            : new DbSchedulerContender(options, receiver, postgres));
                if (options.warmup() > 0 && !contenders.isEmpty()) {
                    out.println("== warm-up (not a result: the JIT settles over tens of thousands of deliveries)");
                    for (Contender c : contenders) phases.add(print(out, c.burst("warmup", options.warmup())));
                }
                for (int n : contenders.isEmpty() ? List.<Integer>of() : options.bursts()) {
                    out.printf("== %,d due at once%n", n);
                    for (Contender c : contenders) {
                        c.between();
                        phases.add(print(out, c.burst("burst" + n, n)));
                    }
                }
                if (options.steadySeconds() > 0 && !contenders.isEmpty()) {
                    out.printf("== steady %,d/s for %d s%n", options.steadyRate(), options.steadySeconds());
                    for (Contender c : contenders) {
                        c.between();
                        phases.add(print(out, c.steady("steady" + options.steadyRate(), options.steadyRate(), options.steadySeconds())));
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
            for (String db : List.of(options.dbPrefix(), options.dbPrefix() + "_dbs")) {
                try {
                    postgres.drop(db);
                } catch (Exception e) {
                    out.println("could not drop database " + db + ": " + e.getMessage());
                }
            }
        }
        Report report = new Report(phases, wire, wireAsync);
        report.print(out, options);
        return report;
    }

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
        String gcs = ManagementFactory.getGarbageCollectorMXBeans().stream().map(GarbageCollectorMXBean::getName)
                .collect(Collectors.joining(", "));
        return String.format("idem-bench %s | %d cores | Java %s | GC %s | max heap %d MiB | load average at start %s",
                Instant.now(), Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"), gcs,
                Runtime.getRuntime().maxMemory() >> 20, load);
    }
}

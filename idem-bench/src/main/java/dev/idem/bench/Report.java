package dev.idem.bench;

import java.io.PrintStream;
import java.util.List;
import java.util.Optional;
import org.HdrHistogram.Histogram;

/** The figures of one benchmark run: every phase of every contender, the ratios, and the aims. */
public record Report(List<Phase> phases, Double wireRate, Double wireAsyncRate) {
    static final double AIM_RATE = 10_000;
    static final double AIM_P99_MS = 20;
    static final double AIM_RATIO = 3;

    /** Whether every phase delivered each delivery exactly once and recorded it. */
    public boolean allExactlyOnce() {
        return phases.stream().allMatch(Phase::exactlyOnce);
    }

    /** The phase of {@code contender} named {@code label}. */
    public Optional<Phase> phase(String contender, String label) {
        return phases.stream().filter(p -> p.contender().equals(contender) && p.label().equals(label)).findFirst();
    }

    static String line(Phase p) {
        String common = String.format("  %-12s %-12s n=%,d  written in %,d ms  first request %+.1f ms after due  %s",
                p.contender(), p.label(), p.n(), p.insertMillis(), p.firstRequestMs(), p.exactlyOnce() ? "exactly once" : "NOT exactly once");
        String figure = p.label().startsWith("steady")
                ? String.format("%n      lag due->arrival ms: %s  (last recorded %.2f s after the last due)", lag(p.lag()),
                        (p.doneMicros() - p.dueMicros()) / 1e6 - (p.n() - 1) / (double) p.n() * spanSeconds(p))
                : String.format("%n      drained %,.0f deliveries/s  (%.3f s from due to last 2xx recorded)", p.rate(), p.drainSeconds());
        String problems = p.problems().isEmpty() ? "" : "\n      PROBLEMS: " + p.problems();
        return common + figure + "\n      " + p.cpu().describe(p.n()) + "\n      control: a thread asking to wake every " + WakeProbe.PERIOD_MS
                + " ms woke late by ms: " + lag(p.wakeLate()) + problems;
    }

    private static double spanSeconds(Phase p) {
        int rate = Integer.parseInt(p.label().substring("steady".length()));
        return p.n() / (double) rate;
    }

    static String lag(Histogram h) {
        if (h.getTotalCount() == 0) return "no samples";
        return String.format("p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  max %.1f  (n=%,d)", ms(h, 50), ms(h, 90), ms(h, 99), ms(h, 99.9),
                h.getMaxValue() / 1e3, h.getTotalCount());
    }

    private static double ms(Histogram h, double percentile) {
        return h.getValueAtPercentile(percentile) / 1e3;
    }

    void print(PrintStream out, BenchOptions options) {
        out.println();
        out.println("== summary (warm runs only; Idem / db-scheduler)");
        if (wireRate != null) out.printf("  ceiling without a database (client + receiver on this machine): %,.0f/s with HttpClient.send, "
                + "%,.0f/s with sendAsync(..).get()%n", wireRate, wireAsyncRate);
        for (int n : options.bursts()) {
            Optional<Phase> idem = phase("idem", "burst" + n);
            Optional<Phase> dbs = phase("db-scheduler", "burst" + n);
            out.printf("  %,7d due at once:  idem %s   db-scheduler %s   ratio %s%n", n, rate(idem), rate(dbs),
                    idem.isPresent() && dbs.isPresent() ? String.format("%.2fx", idem.get().rate() / dbs.get().rate()) : "n/a");
            if (idem.isPresent() && dbs.isPresent()) {
                double i = idem.get().cpu().microsPerDelivery(n);
                double d = dbs.get().cpu().microsPerDelivery(n);
                out.printf("           CPU per delivery (JVM incl. receiver + PostgreSQL): idem %.0f µs, db-scheduler %.0f µs: "
                        + "ratio %.2fx, less sensitive to the background load than the rates%n", i, d, d / i);
            }
        }
        if (options.steadySeconds() > 0) {
            String label = "steady" + options.steadyRate();
            Optional<Phase> idem = phase("idem", label);
            Optional<Phase> dbs = phase("db-scheduler", label);
            out.printf("  steady %,d/s for %d s, lag ms:%n", options.steadyRate(), options.steadySeconds());
            idem.ifPresent(p -> out.println("    idem          " + lag(p.lag())));
            idem.ifPresent(p -> out.println("      (control: wake-up lateness on this machine meanwhile " + lag(p.wakeLate()) + ")"));
            dbs.ifPresent(p -> out.println("    db-scheduler  " + lag(p.lag())));
            dbs.ifPresent(p -> out.println("      (control: wake-up lateness on this machine meanwhile " + lag(p.wakeLate()) + ")"));
            if (idem.isPresent() && dbs.isPresent())
                out.printf("    p99 ratio db-scheduler/idem %.1fx%n", ms(dbs.get().lag(), 99) / Math.max(0.001, ms(idem.get().lag(), 99)));
        }
        out.println("== aims (issue 3)");
        for (int n : options.bursts()) {
            phase("idem", "burst" + n).ifPresent(p -> out.printf("  >= %,.0f deliveries/s at %,d due: %s (%,.0f/s)%n", AIM_RATE, n,
                    p.rate() >= AIM_RATE ? "met" : "NOT met", p.rate()));
            Optional<Phase> dbs = phase("db-scheduler", "burst" + n);
            phase("idem", "burst" + n).ifPresent(p -> dbs.ifPresent(d -> out.printf("  >= %.0fx db-scheduler at %,d due: %s (%.2fx)%n",
                    AIM_RATIO, n, p.rate() / d.rate() >= AIM_RATIO ? "met" : "NOT met", p.rate() / d.rate())));
        }
        phase("idem", "steady" + options.steadyRate()).ifPresent(p -> out.printf("  p99 lag < %.0f ms at %,d/s: %s (%.1f ms)%n",
                AIM_P99_MS, options.steadyRate(), ms(p.lag(), 99) < AIM_P99_MS ? "met" : "NOT met", ms(p.lag(), 99)));
        out.println(allExactlyOnce() ? "every run: each delivery arrived exactly once and was recorded"
                : "SOME RUN WAS NOT EXACTLY ONCE: see PROBLEMS above");
        out.println("load average at end: " + loadAverage());
    }

    private static String rate(Optional<Phase> p) {
        return p.map(x -> String.format("%,.0f/s", x.rate())).orElse("n/a");
    }

    private static String loadAverage() {
        try {
            return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).trim();
        } catch (Exception e) {
            return "n/a";
        }
    }
}

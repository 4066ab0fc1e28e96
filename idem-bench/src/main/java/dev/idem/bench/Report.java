package dev.idem.bench;

import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.HdrHistogram.Histogram;

/** The figures of one benchmark run: every phase of every contender, the ratios, and the aims. */
public record Report(List<Phase> phases, Map<SignedPost.Http, Bench.WireFigure> wire) {
    static final double AIM_RATE = 10_000;
    static final double AIM_P99_MS = 20;
    static final double AIM_RATIO = 3;

    /** Whether every phase delivered each delivery exactly once and recorded it. */
    public boolean allExactlyOnce() {
        return phases.stream().allMatch(Phase::exactlyOnce);
    }

    /** The phase of {@code contender} named {@code label}. */
    public Optional<Phase> phase(String contender, String label) {
        return phases.stream()
                .filter(p -> p.contender().equals(contender) && p.label().equals(label))
                .findFirst();
    }

    /**
     * The phase label of each burst size in order: {@code burst10000}, and for a size run again {@code burst10000-2},
     * {@code burst10000-3}, … (a repeat shows how far the JIT has settled; the summary and aims read each label).
     */
    static List<String> burstLabels(List<Integer> sizes) {
        Map<Integer, Integer> seen = new java.util.HashMap<>();
        List<String> labels = new java.util.ArrayList<>();
        for (int n : sizes) {
            int k = seen.merge(n, 1, Integer::sum);
            labels.add("burst" + n + (k == 1 ? "" : "-" + k));
        }
        return labels;
    }

    static String line(Phase p) {
        String common = String.format(
                "  %-19s %-12s n=%,d  written in %,d ms  first request %+.1f ms after due  %s",
                p.contender(),
                p.label(),
                p.n(),
                p.insertMillis(),
                p.firstRequestMs(),
                p.exactlyOnce() ? "exactly once" : "NOT exactly once");
        String figure = p.label().startsWith("steady") || p.label().startsWith("healthy")
                ? String.format(
                        "%n      lag due->arrival ms: %s  (last recorded %.2f s after the last due)",
                        lag(p.lag()),
                        (p.doneMicros() - p.dueMicros()) / 1e6 - (p.n() - 1) / (double) p.n() * spanSeconds(p))
                : String.format(
                        "%n      drained %,.0f deliveries/s  (%.3f s from due to last 2xx recorded)",
                        p.rate(), p.drainSeconds());
        if (!p.byNode().isEmpty()) figure += "  " + p.byNode();
        String problems = p.problems().isEmpty() ? "" : "\n      PROBLEMS: " + p.problems();
        return common + figure + "\n      " + p.cpu().describe(p.n())
                + "\n      control: a thread asking to wake every " + WakeProbe.PERIOD_MS + " ms woke late by ms: "
                + lag(p.wakeLate()) + problems;
    }

    private static double spanSeconds(Phase p) {
        int rate = Integer.parseInt(p.label().replaceAll("\\D+", ""));
        return p.n() / (double) rate;
    }

    static String lag(Histogram h) {
        if (h.getTotalCount() == 0) return "no samples";
        return String.format(
                "p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  max %.1f  (n=%,d)",
                ms(h, 50), ms(h, 90), ms(h, 99), ms(h, 99.9), h.getMaxValue() / 1e3, h.getTotalCount());
    }

    private static double ms(Histogram h, double percentile) {
        return h.getValueAtPercentile(percentile) / 1e3;
    }

    void print(PrintStream out, BenchOptions options) {
        List<String> peers =
                BenchOptions.ALL.stream().filter(c -> !c.equals("idem")).toList();
        out.println();
        out.println("== summary (warm runs only; ratios are Idem / peer, from the same run)");
        if (options.nodes() > 1)
            out.printf(
                    "  %d nodes per contender on its one database, all in this JVM on these cores: coordination and"
                            + " exactly-once across nodes, not scale-out%n",
                    options.nodes());
        wire.forEach((http, f) -> out.printf(
                "  ceiling without a database (client + receiver on this machine), %s: %,.0f/s (%.0f µs JVM CPU each)%n",
                http.label(), f.rate(), f.jvmMicros()));
        List<String> labels = burstLabels(options.bursts());
        for (int i = 0; i < labels.size(); i++) {
            int n = options.bursts().get(i);
            String label = labels.get(i);
            Optional<Phase> idem = phase("idem", label);
            out.printf(
                    "  %,7d due at once%s:  idem %s%s%n",
                    n,
                    label.contains("-") ? " (again, run " + label.substring(label.indexOf('-') + 1) + ")" : "",
                    rate(idem),
                    idem.map(p -> String.format(
                                    "  (CPU per delivery, JVM incl. receiver + PostgreSQL: %.0f µs, of which the JIT"
                                            + " compiler %.0f µs)",
                                    p.cpu().microsPerDelivery(n),
                                    p.cpu().jitCores() * p.cpu().seconds() * 1e6 / n))
                            .orElse(""));
            for (String peer : peers) {
                Optional<Phase> other = phase(peer, label);
                if (other.isEmpty()) continue;
                String ratio = idem.isPresent()
                        ? String.format(
                                "ratio %.2fx, CPU per delivery %.0f µs (%.2fx Idem's)",
                                idem.get().rate() / other.get().rate(),
                                other.get().cpu().microsPerDelivery(n),
                                other.get().cpu().microsPerDelivery(n)
                                        / idem.get().cpu().microsPerDelivery(n))
                        : "";
                out.printf("           %-20s %s   %s%n", peer, rate(other), ratio);
            }
        }
        if (options.steadySeconds() > 0) {
            String label = "steady" + options.steadyRate();
            out.printf("  steady %,d/s for %d s, lag ms:%n", options.steadyRate(), options.steadySeconds());
            for (String c : BenchOptions.ALL) {
                phase(c, label).ifPresent(p -> {
                    out.printf("    %-20s %s%n", c, lag(p.lag()));
                    out.println(
                            "      (control: wake-up lateness on this machine meanwhile " + lag(p.wakeLate()) + ")");
                });
            }
        }
        if (options.slowDue() > 0) {
            String label = "slow" + options.slowMillis();
            out.printf(
                    "  %,d due at once to one destination answering in %d ms:%n",
                    options.slowDue(), options.slowMillis());
            for (String c : BenchOptions.ALL)
                phase(c, label)
                        .ifPresent(p -> out.printf(
                                "    %-20s %,8.0f/s  (CPU per delivery %.0f µs)%n",
                                c, p.rate(), p.cpu().microsPerDelivery(p.n())));
        }
        if (options.hangingDue() > 0 && options.steadySeconds() > 0)
            healthyBesideHanging(
                    out,
                    "healthy" + options.healthyRate(),
                    String.format(
                            "healthy destination at %d/s beside %,d due to one that never answers",
                            options.healthyRate(), options.hangingDue()));
        if (options.sameHostDue() > 0 && options.steadySeconds() > 0)
            healthyBesideHanging(
                    out,
                    "samehost" + options.healthyRate(),
                    String.format(
                            "healthy path at %d/s beside %,d due to a hanging path of the same host and port",
                            options.healthyRate(), options.sameHostDue()));
        out.println("== aims");
        phase("idem", "slow" + options.slowMillis())
                .ifPresent(p -> out.printf(
                        "  >= 2,000 deliveries/s to one destination answering in %d ms: %s (%,.0f/s)%n",
                        options.slowMillis(), p.rate() >= 2_000 ? "met" : "NOT met", p.rate()));
        phase("idem", "healthy" + options.healthyRate())
                .ifPresent(p -> out.printf(
                        "  healthy destination's p99 lag <= 1 s beside a hanging one: %s (%.1f ms)%n",
                        !p.timedOut() && ms(p.lag(), 99) <= 1_000 ? "met" : "NOT met", ms(p.lag(), 99)));
        phase("idem", "samehost" + options.healthyRate())
                .ifPresent(p -> out.printf(
                        "  healthy path's p99 lag <= 1 s beside a hanging path of the same host and port: %s (%.1f ms)%n",
                        !p.timedOut() && ms(p.lag(), 99) <= 1_000 ? "met" : "NOT met", ms(p.lag(), 99)));
        for (int n : new java.util.LinkedHashSet<>(options.bursts())) {
            // the aims are read off each size's first run, as they always were; a repeat shows how far the JIT settles
            phase("idem", "burst" + n)
                    .ifPresent(p -> out.printf(
                            "  >= %,.0f deliveries/s at %,d due: %s (%,.0f/s)%n",
                            AIM_RATE, n, p.rate() >= AIM_RATE ? "met" : "NOT met", p.rate()));
            for (String peer : peers) {
                Optional<Phase> other = phase(peer, "burst" + n);
                phase("idem", "burst" + n)
                        .ifPresent(p -> other.ifPresent(d -> out.printf(
                                "  >= %.0fx %s at %,d due: %s (%.2fx)%n",
                                AIM_RATIO,
                                peer,
                                n,
                                p.rate() / d.rate() >= AIM_RATIO ? "met" : "NOT met",
                                p.rate() / d.rate())));
            }
        }
        phase("idem", "steady" + options.steadyRate())
                .ifPresent(p -> out.printf(
                        "  p99 lag < %.0f ms at %,d/s: %s (%.1f ms)%n",
                        AIM_P99_MS,
                        options.steadyRate(),
                        ms(p.lag(), 99) < AIM_P99_MS ? "met" : "NOT met",
                        ms(p.lag(), 99)));
        out.println(
                allExactlyOnce()
                        ? "every run: each delivery arrived exactly once and was recorded"
                        : "SOME RUN WAS NOT EXACTLY ONCE: see PROBLEMS above");
        out.println("load average at end: " + loadAverage());
    }

    private static String rate(Optional<Phase> p) {
        return p.map(x -> String.format("%,.0f/s", x.rate())).orElse("n/a");
    }

    static String loadAverage() {
        try {
            return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg"))
                    .trim();
        } catch (Exception e) {
            return "n/a";
        }
    }

    /** The healthy side's lag per contender, for a phase that runs it beside a hanging destination. */
    private void healthyBesideHanging(PrintStream out, String label, String heading) {
        out.printf("  %s, lag ms:%n", heading);
        for (String c : BenchOptions.ALL)
            phase(c, label)
                    .ifPresent(p -> out.printf(
                            "    %-20s %s%s%n",
                            c, lag(p.lag()), p.timedOut() ? "  (TIMED OUT: not all delivered)" : ""));
    }
}

package dev.idem.bench;

import dev.idem.wire.SigningSecret;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;

/**
 * A scheduler under test. Subclasses write deliveries the way the scheduler's users would and say how many
 * 2xx outcomes it has recorded; this class runs the phases the same way for every contender: write every
 * delivery of the run ahead of its due instant, wait for it, then time until the last outcome is recorded.
 */
abstract class Contender implements AutoCloseable {
    /** Deliveries written per transaction or batch by each writer thread. */
    static final int WRITE_CHUNK = 500;

    private static final Duration SETTLE = Duration.ofMillis(500);

    protected final BenchOptions options;
    protected final Receiver receiver;
    /** Learnt from each run, so the next run's due instant leaves enough time to write it. */
    private double writesPerSecond = 1_000;

    Contender(BenchOptions options, Receiver receiver) {
        this.options = options;
        this.receiver = receiver;
    }

    abstract String name();

    /** The secret deliveries are signed with (the receiver checks a sample). */
    abstract SigningSecret secret();

    /** Writes deliveries {@code from..to-1} of run {@code label} to {@code endpoint}; delivery i is due at {@code due.apply(i)}. */
    abstract void write(String label, String endpoint, int from, int to, IntFunction<Instant> due) throws Exception;

    /** Gives up on whatever is still queued (a phase's hanging deliveries); returns how many rows it removed. */
    abstract long purge() throws Exception;

    /** 2xx outcomes recorded (committed) since start, by node ({@code --nodes}): each node counts its own. */
    abstract long[] completedByNode();

    /** 2xx outcomes recorded (committed) since start, across the nodes. */
    final long completed() {
        long sum = 0;
        for (long c : completedByNode()) sum += c;
        return sum;
    }

    /** Rows still queued (not finished). */
    abstract long pending() throws Exception;

    /** Housekeeping between phases (vacuum), outside any measurement. */
    void between() throws Exception {}

    /** Every delivery due at once. */
    Phase burst(String label, int n) throws Exception {
        return run(label, n, i -> Duration.ZERO, Duration.ZERO, receiver, null, 0);
    }

    /** Every delivery due at once, to {@code slow} (a receiver that takes its time to answer). */
    Phase burstTo(String label, int n, Receiver slow) throws Exception {
        return run(label, n, i -> Duration.ZERO, Duration.ZERO, slow, null, 0);
    }

    /** {@code rate} deliveries per second for {@code seconds}, each due at its own millisecond. */
    Phase steady(String label, int rate, int seconds) throws Exception {
        int n = rate * seconds;
        return run(label, n, i -> Duration.ofMillis(i * 1000L / rate), Duration.ofSeconds(seconds), receiver, null, 0);
    }

    /**
     * {@code hangingDue} deliveries due at the start to {@code hanging}, which never answers, and beside them
     * {@code rate} per second for {@code seconds} to {@code healthy}: the figures are the healthy ones'. Afterwards the
     * hanging receiver is released and what is left of its deliveries drains or is purged.
     */
    Phase steadyBesideHanging(String label, int rate, int seconds, Receiver healthy, Receiver hanging, int hangingDue)
            throws Exception {
        int n = rate * seconds;
        return run(
                label,
                n,
                i -> Duration.ofMillis(i * 1000L / rate),
                Duration.ofSeconds(seconds),
                healthy,
                hanging,
                hangingDue);
    }

    private Phase run(
            String label,
            int n,
            IntFunction<Duration> offset,
            Duration span,
            Receiver target,
            Receiver hanging,
            int hangingDue)
            throws Exception {
        // time to write every row of the phase, the hanging destination's too, before the instant
        int rows = n + (hanging != null ? hangingDue : 0);
        Duration margin = Duration.ofMillis((long) (rows / writesPerSecond * 1500) + (rows < 1_000 ? 500 : 2_000));
        Instant due = Instant.now().plus(margin).truncatedTo(ChronoUnit.MILLIS);
        Receiver.Tally tally = target.begin(n, secret());
        long[] baseByNode = completedByNode();
        long base = completed();
        long t0 = System.nanoTime();
        if (hanging != null) {
            // a same-host receiver counts its healthy path only: its tally is the target's
            if (hanging != target) hanging.begin(hangingDue, null);
            writeAll(
                    label + "h",
                    hanging.servesHangingPath() ? hanging.hangingUrl() : hanging.url(),
                    hangingDue,
                    i -> due);
        }
        writeAll(label, target.url(), n, i -> due.plus(offset.apply(i)));
        long insertNanos = System.nanoTime() - t0;
        boolean overran = Instant.now().isAfter(due);
        writesPerSecond = Math.max(200, n / (insertNanos / 1e9));

        sleepUntil(due.minusMillis(2));
        CpuUse cpu0 = CpuUse.sample();
        WakeProbe probe = new WakeProbe();
        Duration limit = span.plus(Duration.ofSeconds(Math.max(60, n / 300)));
        Instant deadline = due.plus(limit);
        boolean timedOut = false;
        while (completed() - base < n) {
            if (Instant.now().isAfter(deadline)) {
                timedOut = true;
                break;
            }
            Thread.sleep(1);
        }
        Instant done = Instant.now();
        CpuUse cpu1 = CpuUse.sample();
        org.HdrHistogram.Histogram wakeLate = probe.stop();
        long completed = completed() - base;
        long[] byNode = completedByNode();
        for (int i = 0; i < byNode.length; i++) byNode[i] -= baseByNode[i];
        if (hanging != null) release(hanging);
        Thread.sleep(SETTLE.toMillis()); // let a duplicate, if any, reach the receiver before counting
        return new Phase(
                name(),
                label,
                n,
                due,
                done.getEpochSecond() * 1_000_000L + done.getNano() / 1_000,
                insertNanos / 1_000_000,
                overran,
                timedOut,
                completed,
                byNode,
                pending(),
                tally,
                tally.lag(),
                cpu0.until(cpu1),
                wakeLate);
    }

    /** Lets the hanging receiver answer, gives the contender a minute to drain, then purges what is left. */
    private void release(Receiver hanging) throws Exception {
        hanging.release();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (pending() > 0 && System.nanoTime() < deadline) Thread.sleep(100);
        long purged = purge();
        if (purged > 0)
            System.out.printf(
                    "      (%s: %,d deliveries to the hanging receiver still queued a minute after it was released; purged)%n",
                    name(), purged);
    }

    private void writeAll(String label, String endpoint, int n, IntFunction<Instant> due) throws Exception {
        ExecutorService writers = Executors.newFixedThreadPool(options.insertThreads());
        try {
            List<Future<?>> parts = new ArrayList<>();
            for (int from = 0; from < n; from += WRITE_CHUNK) {
                int f = from;
                int to = Math.min(n, from + WRITE_CHUNK);
                parts.add(writers.submit(() -> {
                    write(label, endpoint, f, to, due);
                    return null;
                }));
            }
            for (Future<?> p : parts) p.get();
        } finally {
            writers.shutdownNow();
        }
    }

    /** Closes every one of {@code nodes} in order even when one fails; rethrows the first failure, the others suppressed. */
    static void closeAll(List<? extends AutoCloseable> nodes) throws Exception {
        Exception first = null;
        for (AutoCloseable n : nodes) {
            try {
                n.close();
            } catch (Exception e) {
                if (first == null) first = e;
                else first.addSuppressed(e);
            }
        }
        if (first != null) throw first;
    }

    private static void sleepUntil(Instant t) throws InterruptedException {
        long ms = Duration.between(Instant.now(), t).toMillis();
        if (ms > 0) Thread.sleep(ms);
    }
}

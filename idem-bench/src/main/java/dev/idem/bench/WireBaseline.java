package dev.idem.bench;

import dev.idem.wire.SigningSecret;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The ceiling without any database: 64 threads POSTing signed envelopes to the receiver as fast as they can, with
 * one HTTP client or the other. No scheduler using that client can drain faster than this on the same machine
 * with the receiver in the same JVM.
 */
final class WireBaseline {
    /** Threads the JVM started during the last run beyond the run's own: one per request shows a thread-per-task executor. */
    static volatile long lastThreadsStarted;

    /** This JVM's CPU per request in the last run (client and receiver together), in microseconds. */
    static volatile double lastJvmMicrosPerRequest;

    private WireBaseline() {}

    /** Requests per second over {@code n} requests. */
    static double run(Receiver receiver, int n, int threads, SignedPost.Http http) throws Exception {
        SigningSecret secret = SigningSecret.generate(new SecureRandom());
        Receiver.Tally tally = receiver.begin(n, secret);
        AtomicInteger next = new AtomicInteger();
        AtomicLong failures = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try (SignedPost post = new SignedPost(receiver.url(), secret, http)) {
            long threads0 =
                    java.lang.management.ManagementFactory.getThreadMXBean().getTotalStartedThreadCount();
            CpuUse cpu0 = CpuUse.sample();
            long t0 = System.nanoTime();
            for (int t = 0; t < threads; t++) {
                pool.execute(() -> {
                    for (int i = next.getAndIncrement(); i < n; i = next.getAndIncrement()) {
                        try {
                            int status = post.send("wire_" + http + "_" + i, Instant.now());
                            if (status / 100 != 2) failures.incrementAndGet();
                        } catch (Exception e) {
                            failures.incrementAndGet();
                        }
                    }
                });
            }
            pool.shutdown();
            if (!pool.awaitTermination(5, TimeUnit.MINUTES))
                throw new IllegalStateException("wire baseline did not finish in 5 minutes");
            double seconds = (System.nanoTime() - t0) / 1e9;
            CpuUse.Span cpu = cpu0.until(CpuUse.sample());
            lastJvmMicrosPerRequest = cpu.jvmCores() * cpu.seconds() * 1e6 / n;
            lastThreadsStarted =
                    java.lang.management.ManagementFactory.getThreadMXBean().getTotalStartedThreadCount()
                            - threads0
                            - threads;
            if (failures.get() > 0 || tally.unique() != n)
                throw new IllegalStateException(
                        "wire baseline: " + failures.get() + " failures, " + tally.unique() + " of " + n + " received");
            return n / seconds;
        } finally {
            pool.shutdownNow();
        }
    }
}

package dev.idem.server.internal;

import dev.idem.core.store.Store;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * {@code /readyz} from a cached probe: a background thread asks the store for a trivial query every
 * {@link #PERIOD} and {@code /readyz} answers at once from the last answer, so a load balancer's check never
 * queues for a pool connection behind the API's requests or waits out a dead database's connection timeout.
 * A probe that has not finished for {@link #STALE_AFTER} counts as a failure: the store is hanging.
 */
final class ReadinessProbe implements AutoCloseable {
    static final Duration PERIOD = Duration.ofSeconds(1);
    /** Longer than one probe can take (the pool's connection timeout plus the query timeout) and a period. */
    static final Duration STALE_AFTER = Duration.ofSeconds(12);

    /** The last answer: whether the store answered, and when (System.nanoTime) the probe that said so finished. */
    record State(boolean reachable, long at) {}

    private final Store store;
    private volatile State last;
    private ScheduledExecutorService thread;

    ReadinessProbe(Store store) {
        this.store = store;
        this.last = new State(false, System.nanoTime());
    }

    /** Probes once now (so the first {@code /readyz} is right), then every {@link #PERIOD} in the background. */
    synchronized void start() {
        if (thread != null) return;
        probe();
        thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "idem-readiness");
            t.setDaemon(true);
            return t;
        });
        thread.scheduleWithFixedDelay(this::probe, PERIOD.toMillis(), PERIOD.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void probe() {
        boolean up;
        try {
            up = store.isReachable();
        } catch (RuntimeException e) {
            up = false;
        }
        last = new State(up, System.nanoTime());
    }

    /** Whether the store answered its last probe, and that probe is recent. Never blocks. */
    boolean ready() {
        State s = last;
        return s.reachable() && System.nanoTime() - s.at() < STALE_AFTER.toNanos();
    }

    @Override
    public synchronized void close() {
        if (thread != null) thread.shutdownNow();
        thread = null;
    }
}

package dev.idem.server.internal;

import dev.idem.core.store.Store;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * {@code /readyz} from a cached probe: a background thread asks the store for a trivial query ({@link
 * Store#isReachable()}, on a connection of its own, bounded to about a second for the connection and as much for the
 * answer) every {@link #PERIOD}, and {@code /readyz} answers at once from the last answer, so a load balancer's check
 * never queues behind the API's requests or waits out a dead database's timeouts.
 *
 * <p>An answer is good for {@link #FRESH_FOR} from when its probe finished, shorter than a probe may take: a probe that
 * hangs (a database that stopped answering without closing its connections) turns readiness within that, not after
 * the probe gives up. A database that refuses connections fails the next probe: readiness turns within a {@link
 * #PERIOD}.
 */
final class ReadinessProbe implements AutoCloseable {
    static final Duration PERIOD = Duration.ofMillis(500);
    /** How long a good answer stands: a period and a second, less than one hanging probe takes to fail. */
    static final Duration FRESH_FOR = Duration.ofMillis(1500);

    /** The last answer: whether the store answered, and when (System.nanoTime) the probe that said so finished. */
    record State(boolean reachable, long at) {}

    private final BooleanSupplier probe;
    private final LongSupplier nanoTime;
    private volatile State last;
    private ScheduledExecutorService thread;

    ReadinessProbe(Store store) {
        this(store::isReachable, System::nanoTime);
    }

    /** @param probe asks the store; @param nanoTime the clock of freshness (System.nanoTime; tests move their own) */
    ReadinessProbe(BooleanSupplier probe, LongSupplier nanoTime) {
        this.probe = probe;
        this.nanoTime = nanoTime;
        this.last = new State(false, nanoTime.getAsLong());
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
            up = probe.getAsBoolean();
        } catch (RuntimeException e) {
            up = false;
        }
        last = new State(up, nanoTime.getAsLong());
    }

    /** Whether the store answered its last probe, and that answer is fresh. Never blocks. */
    boolean ready() {
        State s = last;
        return s.reachable() && nanoTime.getAsLong() - s.at() < FRESH_FOR.toNanos();
    }

    @Override
    public synchronized void close() {
        if (thread != null) thread.shutdownNow();
        thread = null;
    }
}

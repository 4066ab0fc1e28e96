package dev.idem.engine.internal;

import dev.idem.core.Delivery;
import dev.idem.core.Schedule;
import dev.idem.core.store.DeliveryQueue;
import dev.idem.core.store.DeliveryQueue.Claim;
import dev.idem.engine.EngineConfig;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claims due deliveries and hands them to the sender pool. It claims only what the pool can start soon (the
 * threads plus one more round of prefetch), so a claimed row never waits in a queue long enough to lose its
 * lease. Between claims it sleeps until the earliest due row, a {@link #wakeUp()}, a finished attempt, or
 * the poll interval, whichever comes first.
 */
public final class Dispatcher implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(Dispatcher.class);
    private static final long MIN_SEND_MS = 100;

    private final DeliveryQueue queue;
    private final EngineConfig config;
    private final Clock clock;
    private final ExecutorService senders;
    private final AttemptRunner runner;
    private final Semaphore capacity;
    private final Wakeup wakeup = new Wakeup();
    private volatile boolean running = true;
    private volatile boolean sendersStopping;

    /** Sends one claimed delivery and submits its outcome; calls {@code done} when the slot is free again. */
    public interface AttemptRunner {
        void run(Claim claim, Duration timeout, Runnable done) throws InterruptedException;
    }

    public Dispatcher(DeliveryQueue queue, EngineConfig config, Clock clock, ExecutorService senders, AttemptRunner runner) {
        this.queue = queue;
        this.config = config;
        this.clock = clock;
        this.senders = senders;
        this.runner = runner;
        this.capacity = new Semaphore(config.senderThreads() + Math.min(config.batchSize(), config.senderThreads()));
    }

    public void wakeUp() {
        wakeup.signal();
    }

    /** Stops claiming; in-flight attempts go on. */
    public void stop() {
        running = false;
        wakeup.signal();
    }

    /** Attempts not yet started when this is called are skipped (their leases are released at shutdown). */
    public void stopStartingSends() {
        sendersStopping = true;
    }

    @Override
    public void run() {
        long errorBackoffMs = 100;
        while (running) {
            try {
                int free = capacity.availablePermits();
                if (free == 0) {
                    wakeup.await(config.pollInterval().toNanos());
                    continue;
                }
                int limit = Math.min(config.batchSize(), free);
                List<Claim> claims = queue.claimDue(config.nodeId(), config.lease(), limit);
                long claimedAt = System.nanoTime();
                for (Claim c : claims) submit(c, claimedAt);
                errorBackoffMs = 100;
                if (claims.size() == limit) continue;
                wakeup.await(sleepNanos(claims.isEmpty()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                log.warn("claiming due deliveries failed on node {}, retrying in {} ms: {}", config.nodeId(), errorBackoffMs, e.toString());
                try {
                    wakeup.await(TimeUnit.MILLISECONDS.toNanos(errorBackoffMs));
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
                errorBackoffMs = Math.min(errorBackoffMs * 2, 5000);
            }
        }
    }

    /** Until the earliest claimable row is due, at most the poll interval; a little when one is due but was not claimable. */
    private long sleepNanos(boolean claimedNone) {
        long poll = config.pollInterval().toNanos();
        Optional<Instant> next = queue.nextDueAt();
        if (next.isEmpty()) return poll;
        long untilDue = Duration.between(clock.instant(), next.get()).toNanos();
        if (untilDue <= 0) return claimedNone ? Math.min(poll, TimeUnit.MILLISECONDS.toNanos(20)) : 0;
        return Math.min(poll, untilDue);
    }

    private void submit(Claim claim, long claimedAt) {
        capacity.acquireUninterruptibly();
        Runnable done = () -> {
            capacity.release();
            wakeup.signal();
        };
        try {
            senders.execute(() -> attempt(claim, claimedAt, done));
        } catch (RejectedExecutionException e) {
            done.run();
        }
    }

    private void attempt(Claim claim, long claimedAt, Runnable done) {
        if (sendersStopping) {
            done.run();
            return;
        }
        Duration timeout = timeoutWithinLease(claim.schedule(), claimedAt);
        if (timeout.toMillis() < MIN_SEND_MS) {
            log.warn("delivery {} not sent: only {} ms of its lease left on node {}; it goes out again once the lease expires",
                    claim.delivery().id(), timeout.toMillis(), config.nodeId());
            done.run();
            return;
        }
        try {
            runner.run(claim, timeout, done);
        } catch (InterruptedException e) {
            done.run();
        } catch (RuntimeException e) {
            log.error("attempt of delivery {} failed inside the engine; its lease will expire and it will be sent again", claim.delivery().id(), e);
            done.run();
        }
    }

    /**
     * The schedule's timeout, capped by the engine's ceiling and by what is left of the lease after a safety
     * margin for recording the outcome: a request must end while this node still holds the delivery.
     */
    private Duration timeoutWithinLease(Schedule schedule, long claimedAt) {
        Duration t = schedule.definition().timeout();
        if (t.compareTo(config.maxRequestTimeout()) > 0) t = config.maxRequestTimeout();
        long leaseMs = config.lease().toMillis();
        long margin = Math.min(5000, leaseMs / 10);
        long leftMs = leaseMs - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - claimedAt) - margin;
        return leftMs < t.toMillis() ? Duration.ofMillis(Math.max(leftMs, 0)) : t;
    }

    static Instant dueAt(Delivery d) {
        return d.nextAttemptAt() != null ? d.nextAttemptAt() : d.scheduledFor();
    }
}

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
 * lease, and no more than the recorder can keep up with. While requests are in flight it lets a few sends
 * finish before claiming again, so claims stay batches rather than one row per transaction. Between claims it
 * sleeps until the earliest due row enters the look-ahead (at least {@code CLAIM_SPACING} after a claim that
 * was not full), a {@link #wakeUp()}, a finished attempt while it waits for send slots, or the poll interval,
 * whichever comes first.
 *
 * <p>Several claim loops may run at once ({@link #claimLoop()}, one thread each): when the database is slow to
 * answer, one loop's claim latency would cap throughput at a batch per round trip. Only the first follows the
 * timer; the others claim only while there is a backlog (the last claim came back full), so a quiet queue costs
 * one loop's queries. Each loop reserves its send slots before it claims, so together they never exceed the
 * pool's capacity.
 */
public final class Dispatcher {
    private static final Logger log = LoggerFactory.getLogger(Dispatcher.class);
    private static final long MIN_SEND_MS = 100;
    private static final long GATHER_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    /**
     * Deliveries due this soon are claimed with those due now and held until their instant: under a steady
     * trickle one claim covers this much time instead of each due millisecond costing a transaction.
     */
    static final Duration LOOKAHEAD = Duration.ofMillis(20);
    /**
     * The least time between two claims that were not full: with the look-ahead twice as long, every row is
     * claimed before its instant, and a steady trickle costs one claim per this interval, not one per row.
     */
    private static final long CLAIM_SPACING_NANOS = LOOKAHEAD.toNanos() / 2;

    private final DeliveryQueue queue;
    private final EngineConfig config;
    private final Clock clock;
    private final ExecutorService senders;
    private final AttemptRunner runner;
    /** The node's liveness: the owner to claim as, and whether this node may claim or start an attempt now. */
    private final ClaimGate gate;
    /** Claimed deliveries not yet sent: the threads plus one round of prefetch. */
    private final Semaphore capacity;
    /** Claimed deliveries whose outcome is not yet written; bounds the recorder's backlog while sends go on. */
    private final Semaphore unrecorded;
    private final int sendSlots;
    /** The smallest claim worth a transaction while the pool is busy. */
    private final int minBusyClaim;
    private final java.util.List<Wakeup> wakeups = new java.util.concurrent.CopyOnWriteArrayList<>();
    /**
     * Deliveries this node claimed and has not yet recorded (or given up on): after a failed claim, every other
     * lease this node holds is one it lost track of, and is released instead of waiting for its lease to expire.
     */
    private final java.util.Set<String> held = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Claims hold it shared from their query until their rows are in {@link #held}; recovery holds it alone. */
    private final java.util.concurrent.locks.ReadWriteLock claimLock = new java.util.concurrent.locks.ReentrantReadWriteLock();
    /** Set when a claim failed: its commit may have gone through with the answer lost. */
    private volatile boolean lostClaimPossible;
    private volatile boolean running = true;
    /** Whether the last claim came back full, so more rows are probably due now. */
    private volatile boolean backlog;
    private volatile boolean sendersStopping;
    /** Whether a claim loop is waiting for send slots: only then does a finished send wake it. */
    private volatile boolean waitingForSlots;

    /** Sends one claimed delivery and hands its outcome to the recorder without waiting for it to be written. */
    public interface AttemptRunner {
        /**
         * @param recorded to be run once the outcome is written (or given up on), when this returns true
         * @return whether the outcome went to the recorder; false when nothing is to be recorded
         */
        boolean run(Claim claim, Duration timeout, Runnable recorded) throws InterruptedException;
    }

    /** A dispatcher whose gate is always open, claiming as the node id (tests of the dispatcher alone). */
    public Dispatcher(DeliveryQueue queue, EngineConfig config, Clock clock, ExecutorService senders, AttemptRunner runner) {
        this(queue, config, clock, senders, runner, ClaimGate.open(config.nodeId()));
    }

    public Dispatcher(DeliveryQueue queue, EngineConfig config, Clock clock, ExecutorService senders, AttemptRunner runner, ClaimGate gate) {
        this.gate = gate;
        this.queue = queue;
        this.config = config;
        this.clock = clock;
        this.senders = senders;
        this.runner = runner;
        this.sendSlots = config.senderThreads() + Math.min(config.batchSize(), config.senderThreads());
        this.minBusyClaim = Math.max(1, Math.min(config.batchSize(), sendSlots / 4));
        this.capacity = new Semaphore(sendSlots);
        this.unrecorded = new Semaphore(sendSlots * 4);
    }

    public void wakeUp() {
        for (Wakeup w : wakeups) w.signal();
    }

    /** Stops claiming; in-flight attempts go on. */
    public void stop() {
        running = false;
        wakeUp();
    }

    /** Attempts not yet started when this is called are skipped (their leases are released at shutdown). */
    public void stopStartingSends() {
        sendersStopping = true;
    }

    /** A claim loop, to run on its own thread until {@link #stop()}; the first one made follows the timer. */
    public Runnable claimLoop() {
        Wakeup wakeup = new Wakeup();
        boolean primary = wakeups.isEmpty();
        wakeups.add(wakeup);
        return () -> run(wakeup, primary);
    }

    private void run(Wakeup wakeup, boolean primary) {
        long errorBackoffMs = 100;
        while (running) {
            try {
                if (!primary && !backlog || !gate.mayClaim()) {
                    // a node that cannot renew its liveness claims nothing: it may be declared dead any moment (woken when it may again)
                    wakeup.await(config.pollInterval().toNanos());
                    continue;
                }
                int free = freeSlots();
                if (free == 0) {
                    waitingForSlots = true;
                    try {
                        wakeup.await(config.pollInterval().toNanos());
                    } finally {
                        waitingForSlots = false;
                    }
                    continue;
                }
                if (free < minBusyClaim && capacity.availablePermits() < sendSlots) {
                    long deadline = System.nanoTime() + GATHER_NANOS;
                    waitingForSlots = true;
                    try {
                        for (long left = GATHER_NANOS; left > 0 && running && freeSlots() < minBusyClaim; left = deadline - System.nanoTime())
                            wakeup.await(left);
                    } finally {
                        waitingForSlots = false;
                    }
                    free = freeSlots();
                }
                if (lostClaimPossible) releaseLostClaims();
                int limit = Math.min(config.batchSize(), free);
                if (limit <= 0 || !reserve(limit)) continue;
                List<Claim> claims;
                String owner = gate.owner();
                claimLock.readLock().lock();
                try {
                    claims = queue.claimDue(owner, config.lease(), limit, LOOKAHEAD);
                    if (!owner.equals(gate.owner())) {
                        // declared dead while claiming: nobody else will return claims made as the dead incarnation
                        queue.release(owner);
                        claims = List.of();
                    }
                    for (Claim c : claims) held.add(c.delivery().id());
                } catch (RuntimeException | Error e) {
                    lostClaimPossible = true;
                    unreserve(limit);
                    throw e;
                } finally {
                    claimLock.readLock().unlock();
                }
                unreserve(limit - claims.size());
                long claimedAt = System.nanoTime();
                for (Claim c : claims) submit(c, owner, claimedAt);
                errorBackoffMs = 100;
                backlog = claims.size() == limit;
                if (backlog) {
                    for (int i = 1; i < wakeups.size(); i++) wakeups.get(i).signal();
                    continue;
                }
                if (primary) wakeup.await(sleepNanos(claims.isEmpty()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException | Error e) {
                if (e instanceof Error) log.error("dispatcher on node {} hit an error; it keeps running", config.nodeId(), e);
                else log.warn("claiming due deliveries failed on node {}, retrying in {} ms: {}", config.nodeId(), errorBackoffMs, e.toString());
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

    /**
     * Returns to the queue what this node holds but is not sending: rows of a claim whose commit went through
     * while its answer was lost. Without this they would wait for their lease to expire. Throws (and stays due)
     * while the store is still away.
     */
    private void releaseLostClaims() {
        claimLock.writeLock().lock();
        try {
            // cleared before `held` is read: a send slot that gives up a claim meanwhile sets it again for the next round
            lostClaimPossible = false;
            int released;
            try {
                released = queue.releaseExcept(gate.owner(), java.util.List.copyOf(held));
            } catch (RuntimeException e) {
                lostClaimPossible = true;
                throw e;
            }
            if (released > 0)
                log.warn("node {} released {} deliveries it held but was not sending (a claim's answer was lost); they go out again now",
                        config.nodeId(), released);
        } finally {
            claimLock.writeLock().unlock();
        }
    }

    /** Takes {@code n} send slots and backlog places for a claim, all or none (another loop may be claiming too). */
    private boolean reserve(int n) {
        if (!capacity.tryAcquire(n)) return false;
        if (unrecorded.tryAcquire(n)) return true;
        capacity.release(n);
        return false;
    }

    private void unreserve(int n) {
        if (n <= 0) return;
        capacity.release(n);
        unrecorded.release(n);
    }

    private int freeSlots() {
        return Math.min(capacity.availablePermits(), unrecorded.availablePermits());
    }

    /** Until the earliest claimable row is due, at most the poll interval; a little when one is due but was not claimable. */
    private long sleepNanos(boolean claimedNone) {
        long poll = config.pollInterval().toNanos();
        Optional<Instant> next = queue.nextDueAt();
        if (next.isEmpty()) return poll;
        long untilDue = Duration.between(clock.instant(), next.get()).toNanos() - LOOKAHEAD.toNanos();
        if (untilDue <= 0) return Math.min(poll, claimedNone ? TimeUnit.MILLISECONDS.toNanos(20) : CLAIM_SPACING_NANOS);
        return Math.min(poll, claimedNone ? untilDue : Math.max(untilDue, CLAIM_SPACING_NANOS));
    }

    /** Hands a claimed delivery to the pool; its slot and backlog place were reserved before the claim. */
    private void submit(Claim claim, String owner, long claimedAt) {
        Runnable sent = once(capacity);
        Runnable released = once(unrecorded);
        String id = claim.delivery().id();
        Runnable recorded = () -> {
            held.remove(id);
            released.run();
        };
        try {
            senders.execute(() -> attempt(claim, owner, claimedAt, sent, recorded));
        } catch (RejectedExecutionException e) {
            sent.run();
            recorded.run();
        }
    }

    private Runnable once(Semaphore permits) {
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        return () -> {
            if (done.compareAndSet(false, true)) {
                permits.release();
                if (waitingForSlots) wakeUp();
            }
        };
    }

    private void attempt(Claim claim, String owner, long claimedAt, Runnable sent, Runnable recorded) {
        boolean handedOver = false;
        LogIds.set(claim.delivery());
        boolean refused = false;
        try {
            if (sendersStopping) return;
            holdUntilDue(claim.delivery());
            if (sendersStopping) return;
            Duration timeout = timeoutWithinLease(claim.schedule(), claimedAt);
            if (timeout.toMillis() < MIN_SEND_MS) {
                log.warn("delivery {} not sent: only {} ms of its lease left on node {}; it goes out again once the lease expires",
                        claim.delivery().id(), timeout.toMillis(), config.nodeId());
                return;
            }
            if (!gate.mayStart(owner)) {
                // stale liveness: the claim may be in another node's hands. If it is still ours, the next claim releases it
                refused = true;
                log.debug("delivery {} not sent: node {} cannot vouch for its claim (liveness not renewed, or declared dead)",
                        claim.delivery().id(), owner);
                return;
            }
            handedOver = runner.run(claim, timeout, recorded);
        } catch (InterruptedException e) {
            // shutting down past the grace: the lease is released by close()
        } catch (RuntimeException | Error e) {
            log.error("attempt of delivery {} failed inside the engine; its lease will expire and it will be sent again", claim.delivery().id(), e);
        } finally {
            LogIds.clear();
            // the sender thread is free: claim more while the recorder writes this outcome
            sent.run();
            if (!handedOver) recorded.run();
            // only once it is out of `held` may the release before the next claim return it
            if (refused) lostClaimPossible = true;
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

    /** A delivery claimed within the look-ahead waits for its instant: never sent early. */
    private void holdUntilDue(Delivery d) throws InterruptedException {
        long waitMs = Duration.between(clock.instant(), dueAt(d)).toMillis();
        if (waitMs > 0) Thread.sleep(Math.min(waitMs, LOOKAHEAD.toMillis()));
    }

    static Instant dueAt(Delivery d) {
        return d.nextAttemptAt() != null ? d.nextAttemptAt() : d.scheduledFor();
    }
}

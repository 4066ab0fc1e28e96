package dev.idem.engine.internal;

import dev.idem.core.store.DeliveryQueue;
import dev.idem.core.store.DeliveryQueue.Outcome;
import dev.idem.core.store.StoreException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes attempt outcomes in batches: whatever finished while the previous batch committed goes into the next
 * transaction, so many deliveries share one commit. A store error keeps the batch and retries it; if the lease
 * runs out meanwhile the outcome is dropped by the store and the delivery goes out again (at least once). A
 * batch that keeps failing for a reason other than the database being away is written one outcome at a time,
 * so one outcome the store refuses cannot hold up the rest.
 *
 * <p>On a store whose transactions may overlap (PostgreSQL), a {@link #helper()} thread writes a second batch beside
 * the first, but only while a full batch is queued behind the one being written. Why: after a burst's last request
 * the outcomes queued meanwhile (thousands) were written one transaction at a time, the node's thread waiting on one
 * database backend, so one of two cores sat idle for the last third of the burst (measured: 6,000 outcomes queued
 * when the last request ended, drained in 280 ms with the machine 50–60% busy). Below a full batch the helper stays
 * asleep: two writers taking small batches all the time cost more CPU per delivery for no gain
 * (idem-bench/runs/2026-11-27T0214-two-recorders-ab.txt).
 */
public final class Recorder implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(Recorder.class);
    private static final int MAX_BATCH = 500;
    /**
     * A batch smaller than this waits {@link #GATHER_NANOS} after its first outcome for more: at a steady
     * rate outcomes arrive one by one, and each transaction costs several round trips and a commit whatever its
     * size (measured at 1,000 deliveries/s: PostgreSQL spent 0.5 ms per delivery writing batches of one or two).
     * In a burst the batch fills at once and nothing waits.
     */
    private static final int GATHER_BATCH = 64;

    private static final long GATHER_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final int FAILURES_BEFORE_SPLIT = 3;

    /** An outcome and what to run once it is written (or given up on). */
    private record Pending(Outcome outcome, Runnable done) {}

    private final DeliveryQueue queue;
    /** The current incarnation's lease owner: an outcome of a claim made by an earlier, dead one is stale either way. */
    private final java.util.function.Supplier<String> owner;

    private final EngineMetrics metrics;
    private final Runnable beforeWrite;
    private final LinkedBlockingQueue<Pending> pending = new LinkedBlockingQueue<>();
    private volatile boolean stopping;
    private volatile long flushDeadlineNanos;
    /** Wakes a waiting {@link #helper()} when a full batch is queued. */
    private final java.util.concurrent.Semaphore helperWake = new java.util.concurrent.Semaphore(0);

    private volatile boolean helperWaiting;

    public Recorder(DeliveryQueue queue, java.util.function.Supplier<String> owner, EngineMetrics metrics) {
        this(queue, owner, metrics, () -> {});
    }

    /** @param beforeWrite runs before each batch is written (tracing keeps its first attempts' spans there) */
    public Recorder(
            DeliveryQueue queue,
            java.util.function.Supplier<String> owner,
            EngineMetrics metrics,
            Runnable beforeWrite) {
        this.queue = queue;
        this.owner = owner;
        this.metrics = metrics;
        this.beforeWrite = beforeWrite;
    }

    public void submit(Outcome outcome, Runnable done) {
        pending.add(new Pending(outcome, done));
        if (helperWaiting && pending.size() >= MAX_BATCH) helperWake.release();
    }

    /**
     * A second writer, to run on its own thread beside {@link #run()} on a store whose write transactions may overlap:
     * it writes only while a full batch is queued, and ends when the recorder stops.
     */
    public Runnable helper() {
        return () -> loop(true);
    }

    /** Asks the loop to write what is queued and end, giving up on store errors after {@code flushNanos}. */
    public void stop(long flushNanos) {
        flushDeadlineNanos = System.nanoTime() + flushNanos;
        stopping = true;
    }

    @Override
    public void run() {
        loop(false);
    }

    /** The writer's loop; a helper takes a batch only when a full one is queued, and leaves the rest to the main loop. */
    private void loop(boolean helper) {
        List<Pending> batch = new ArrayList<>();
        long backoffMs = 50;
        int failures = 0;
        while (true) {
            try {
                if (batch.isEmpty()) {
                    if (helper) {
                        if (pending.size() < MAX_BATCH) {
                            if (stopping) return;
                            awaitFullBatch();
                            continue;
                        }
                    } else {
                        Pending first = pending.poll(50, TimeUnit.MILLISECONDS);
                        if (first == null) {
                            if (stopping) return;
                            continue;
                        }
                        batch.add(first);
                    }
                }
                pending.drainTo(batch, MAX_BATCH - batch.size());
                if (batch.isEmpty()) continue;
                if (!helper && batch.size() < GATHER_BATCH && !stopping) gather(batch);
                write(batch);
                batch.clear();
                backoffMs = 50;
                failures = 0;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                giveUp(batch);
                return;
            } catch (RuntimeException | Error e) {
                if (stopping && System.nanoTime() > flushDeadlineNanos) {
                    log.error(
                            "could not record {} attempt outcome(s) before shutdown (their leases will expire and they "
                                    + "will be sent again): {}",
                            batch.size(),
                            e.toString());
                    giveUp(batch);
                    pending.forEach(p -> p.done.run());
                    return;
                }
                if (++failures >= FAILURES_BEFORE_SPLIT && !(e instanceof StoreException se && se.transientFailure())) {
                    writeOneByOne(batch);
                    batch.clear();
                    failures = 0;
                    continue;
                }
                log.warn(
                        "recording {} attempt outcome(s) failed, retrying in {} ms: {}",
                        batch.size(),
                        backoffMs,
                        e.toString());
                sleep(backoffMs);
                backoffMs = Math.min(backoffMs * 2, 2000);
            }
        }
    }

    /** Sleeps until a full batch is queued (or 50 ms: a missed wake-up costs no more than that). */
    private void awaitFullBatch() throws InterruptedException {
        helperWake.drainPermits();
        helperWaiting = true;
        try {
            if (pending.size() < MAX_BATCH) helperWake.tryAcquire(50, TimeUnit.MILLISECONDS);
        } finally {
            helperWaiting = false;
        }
    }

    /**
     * Lets more outcomes share the batch's transaction: one sleep, not a wake-up per arriving outcome (at a
     * steady rate they arrive one by one).
     */
    private void gather(List<Pending> batch) throws InterruptedException {
        TimeUnit.NANOSECONDS.sleep(GATHER_NANOS);
        pending.drainTo(batch, MAX_BATCH - batch.size());
    }

    private void write(List<Pending> batch) {
        List<Outcome> outcomes = new ArrayList<>(batch.size());
        for (Pending p : batch) outcomes.add(p.outcome);
        String as = owner.get();
        beforeWrite.run();
        DeliveryQueue.Completed completed = queue.complete(as, outcomes);
        Set<String> applied = new HashSet<>(completed.applied());
        // once each, from the store's own account of what this write did (a dropped stale outcome is not news)
        for (DeliveryQueue.Dead d : completed.dead()) {
            try (var deliveryId = LogIds.delivery(d.deliveryId());
                    var scheduleId = LogIds.schedule(d.scheduleId())) {
                log.warn(
                        "delivery {} of schedule {} is dead after {} attempt(s), last error: {}; replay it with POST /v1/deliveries/{}/replay "
                                + "once the endpoint is fixed",
                        d.deliveryId(),
                        d.scheduleId(),
                        d.attempts(),
                        d.lastError(),
                        d.deliveryId());
            }
        }
        for (DeliveryQueue.AutoPaused p : completed.autoPaused()) {
            try (var scheduleId = LogIds.schedule(p.scheduleId())) {
                log.warn(
                        "schedule {} paused itself after {} failed attempts in a row (auto_pause_after); resume it with "
                                + "POST /v1/schedules/{}/resume",
                        p.scheduleId(),
                        p.consecutiveFailures(),
                        p.scheduleId());
            }
        }
        for (Pending p : batch) {
            if (applied.contains(p.outcome.deliveryId())) metrics.outcome(p.outcome.newStatus());
            else {
                metrics.stale();
                try (var ids = LogIds.delivery(p.outcome.deliveryId())) {
                    log.info(
                            "outcome of delivery {} attempt {} dropped: {} no longer holds its lease (another node reclaimed it)",
                            p.outcome.deliveryId(),
                            p.outcome.attempt().number(),
                            as);
                }
            }
            p.done.run();
        }
    }

    private void writeOneByOne(List<Pending> batch) {
        for (Pending p : batch) {
            try {
                write(List.of(p));
            } catch (RuntimeException e) {
                try (var ids = LogIds.delivery(p.outcome.deliveryId())) {
                    log.error(
                            "the store refuses the outcome of delivery {} attempt {}; it is dropped, and the delivery goes out "
                                    + "again once its lease expires: {}",
                            p.outcome.deliveryId(),
                            p.outcome.attempt().number(),
                            e.toString());
                }
                p.done.run();
            }
        }
    }

    private static void giveUp(List<Pending> batch) {
        for (Pending p : batch) p.done.run();
        batch.clear();
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

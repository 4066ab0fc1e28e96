package dev.idem.engine.internal;

import dev.idem.core.IdempotencyWindow;
import dev.idem.core.store.Store;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reaper (expired leases back to the queue, so a dead node's deliveries go out again with the same id and
 * key: the backstop behind {@link Liveness}'s takeover) and the pruner (finished deliveries and attempts past
 * retention; then completed and deleted schedules, the internal one-shots behind source events, alerts and messages
 * among them, and messages, once their last delivery is gone and both retention and {@link IdempotencyWindow#LENGTH}
 * have passed; idempotency records and dedup reservations past {@link IdempotencyWindow#LENGTH}; records of nodes that
 * ended a day ago; flow-control counters unused for an hour; portal sessions a day after they expired, portal links
 * and audit entries past retention), in small batches so no transaction is long. A run goes on until each kind is
 * back within its retention, resting after each full batch as long as the batch took: the pruner keeps up with any
 * delivery rate the store sustains (a fixed number of batches a minute would fall behind one), yet holds at most
 * half of one connection's time, and the claims and outcomes between its batches never wait behind a long delete.
 */
public final class Maintenance {
    private static final Logger log = LoggerFactory.getLogger(Maintenance.class);
    /** How long the record of a stopped or dead node is kept (it names the node that declared it dead, for operators). */
    static final Duration NODE_RECORD_RETENTION = Duration.ofDays(1);

    /** How long the per-second counts behind the dashboard's counters (a window of a minute) are kept. */
    static final Duration FINISH_COUNT_RETENTION = Duration.ofHours(1);

    /** How long an expired portal session is kept (so it is answered as expired, not unknown, for a while). */
    static final Duration PORTAL_SESSION_RETENTION = Duration.ofDays(1);

    /** How long a flow-control counter unused since is kept (it counts only within its second). */
    static final Duration FLOW_USAGE_RETENTION = Duration.ofHours(1);

    private static final int PRUNE_BATCH = 500;
    /** Batches a run of the reaper's routing fill or of SQLite's space reclaim takes at most. */
    private static final int MAX_BATCHES_PER_RUN = 20;
    /** Pages (4 KiB each by default) an SQLite file gives back a step: 4 MiB, a few milliseconds of writing. */
    private static final int RECLAIM_PAGES = 1024;

    private final Store store;
    private final Clock clock;
    private final Duration retention;
    private final EngineMetrics metrics;
    private final Runnable onReclaimed;
    private final QueueDepth depth;
    private final int batch;

    public Maintenance(Store store, Clock clock, Duration retention, EngineMetrics metrics, Runnable onReclaimed) {
        this(store, clock, retention, metrics, onReclaimed, PRUNE_BATCH);
    }

    /** With batches of {@code batch} rows: tests show a run's end without writing thousands of rows. */
    Maintenance(Store store, Clock clock, Duration retention, EngineMetrics metrics, Runnable onReclaimed, int batch) {
        this.batch = batch;
        this.store = store;
        this.clock = clock;
        this.retention = retention;
        this.metrics = metrics;
        this.onReclaimed = onReclaimed;
        this.depth = new QueueDepth(store.queue(), clock, metrics);
    }

    /** Returns expired leases to the queue and samples the queue depth; returns how many leases it reclaimed. */
    public int reap() {
        // after an upgrade that cleared every schedule's destination key, up to 10,000 a run (2,000/s at the default
        // reaper interval) rather than 500: until its key is filled a schedule is a destination of its own in claims
        for (int i = 0; i < MAX_BATCHES_PER_RUN && store.queue().fillRouting(PRUNE_BATCH) == PRUNE_BATCH; i++) {}
        int n = store.queue().reapExpired();
        if (n > 0) {
            metrics.reclaimed(n);
            log.info("reclaimed {} deliveries whose lease expired (their node died or stalled); they go out again", n);
            onReclaimed.run();
        }
        depth.sample();
        return n;
    }

    /**
     * Deletes a bounded number of batches of each kind of expired row; returns how many rows it deleted. Finished
     * deliveries (with their attempts) go first: a settled schedule or a message goes only once its last delivery has,
     * so it stays readable, and a dead delivery replayable, for the whole retention.
     */
    public int prune() {
        Instant now = clock.instant();
        Instant deliveriesBefore = now.minus(retention);
        Instant keysBefore = now.minus(IdempotencyWindow.LENGTH);
        // a dedup reservation names the schedule or message it returns to a repeated create: keep that one at least
        // as long as the reservation, even under a retention shorter than the window
        Instant historyBefore = deliveriesBefore.isBefore(keysBefore) ? deliveriesBefore : keysBefore;
        int total = batches(limit -> store.queue().pruneFinished(deliveriesBefore, limit));
        total += batches(limit -> store.queue().pruneSettledSchedules(historyBefore, limit));
        total += batches(limit -> store.queue().pruneMessages(historyBefore, limit));
        total += batches(limit -> store.queue().pruneFinishCounts(now.minus(FINISH_COUNT_RETENTION), limit));
        total += batches(limit -> store.inTransaction(tx -> tx.idempotency().pruneCreatedBefore(keysBefore, limit)));
        total += batches(limit -> store.queue().pruneFlowUsage(now.minus(FLOW_USAGE_RETENTION), limit));
        Instant sessionsBefore = now.minus(PORTAL_SESSION_RETENTION);
        total += batches(limit -> store.inTransaction(tx -> tx.portal().pruneSessions(sessionsBefore, limit)));
        // a link is kept for the retention after it expired, as the history its sessions made
        total += batches(limit -> store.inTransaction(tx -> tx.portal().pruneLinks(deliveriesBefore, limit)));
        total += batches(limit -> store.inTransaction(tx -> tx.portal().pruneAudit(deliveriesBefore, limit)));
        if (Thread.currentThread().isInterrupted()) return total; // the engine is closing
        // a node id per process by default (host name + pid): records of stopped and dead ones would pile up
        total += store.nodes().pruneEnded(now.minus(NODE_RECORD_RETENTION));
        // SQLite: the file gives back what was deleted, a short transaction per step so claims interleave
        if (total > 0)
            for (int i = 0;
                    i < MAX_BATCHES_PER_RUN && store.queue().reclaimSpace(RECLAIM_PAGES) == RECLAIM_PAGES;
                    i++) {}
        if (total > 0)
            log.debug(
                    "pruned {} rows of expired history (deliveries, schedules, messages, idempotency records, counters, "
                            + "portal sessions, links and audit entries, node records)",
                    total);
        return total;
    }

    /**
     * Runs {@code delete} until it deletes less than a full batch, resting after each full one as long as it took; stops
     * early when the thread is interrupted (the engine closing), the interrupt kept for the caller.
     */
    private int batches(java.util.function.IntUnaryOperator delete) {
        int total = 0;
        while (!Thread.currentThread().isInterrupted()) {
            long t0 = System.nanoTime();
            int n = delete.applyAsInt(batch);
            total += n;
            if (n < batch) break;
            try {
                java.util.concurrent.TimeUnit.NANOSECONDS.sleep(System.nanoTime() - t0);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return total;
    }
}

package dev.idem.engine.internal;

import dev.idem.core.store.NodeRegistry;
import dev.idem.core.store.NodeRegistry.Node;
import dev.idem.core.store.NodeRegistry.Scan;
import dev.idem.core.store.NodeRegistry.Takeover;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The part of {@link Liveness} that declares other nodes dead and returns their claims to the queue. A node declares
 * another dead only after it has itself renewed without a lapse for longer than the window (see {@link Liveness} for
 * why); the first scan after start also sweeps nodes whose process has ended on this machine.
 */
final class DeadNodeScan {
    private static final Logger log = LoggerFactory.getLogger(Liveness.class);
    /** The next try after a failed scan: short, so a database that comes back is noticed quickly. */
    private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    /** A scan aimed at another node's deadline runs this long after it, so the deadline has surely passed. */
    private static final long SCAN_SLACK_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private final NodeRegistry registry;
    private final String nodeId;
    private final Duration window;
    private final long windowNanos;
    private final long intervalNanos;
    private final EngineMetrics metrics;
    private final Runnable onClaimsReturned;
    /** Whether the start-up sweep (nodes whose process ended on this machine) has run; only the liveness thread reads it. */
    private boolean swept;

    DeadNodeScan(
            NodeRegistry registry,
            String nodeId,
            Duration window,
            Duration interval,
            EngineMetrics metrics,
            Runnable onClaimsReturned) {
        this.registry = registry;
        this.nodeId = nodeId;
        this.window = window;
        this.windowNanos = window.toNanos();
        this.intervalNanos = interval.toNanos();
        this.metrics = metrics;
        this.onClaimsReturned = onClaimsReturned;
    }

    /**
     * Declares dead the nodes silent past the window (and, on the first scan, those whose process ended here).
     *
     * @param epoch this node's live incarnation
     * @param now this process's monotonic clock
     * @param steadySinceNanos when this node's current unbroken run of timely renewals began
     * @return nanoseconds until the next scan
     */
    long scan(long epoch, long now, long steadySinceNanos) {
        boolean steady = now - steadySinceNanos > windowNanos;
        boolean sweep = !swept;
        if (!steady && !sweep) return untilSteady(now, steadySinceNanos);
        Optional<Scan> done;
        try {
            done = registry.takeOver(
                    nodeId,
                    epoch,
                    (other, at) ->
                            steady && silentPastWindow(other, at) || sweep && ThisProcess.hasEnded(other.process()));
        } catch (RuntimeException e) {
            log.warn("node {} could not look for dead nodes, retrying: {}", nodeId, e.toString());
            return RETRY_NANOS;
        }
        if (done.isEmpty()) return RETRY_NANOS; // our own record is no longer live: the renewal finds out
        swept = true;
        int returned = 0;
        for (Takeover t : done.get().takeovers()) {
            returned += t.claims();
            metrics.reclaimed(t.claims());
            logTakeover(t, steady);
        }
        if (returned > 0) onClaimsReturned.run();
        if (!steady) return untilSteady(now, steadySinceNanos);
        // the next scan when the earliest other node would pass the window, or the interval, whichever is sooner
        long next = intervalNanos;
        Instant at = done.get().now();
        for (Node other : done.get().stillLive())
            next = Math.min(next, Math.max(0, window.minus(other.silentFor(at)).toNanos()) + SCAN_SLACK_NANOS);
        return next;
    }

    private void logTakeover(Takeover t, boolean steady) {
        Node d = t.dead();
        String why = steady && t.silentFor().compareTo(window) > 0
                ? "silent for " + Liveness.seconds(t.silentFor())
                : "its process ended on this machine, last renewed " + Liveness.seconds(t.silentFor()) + " ago";
        log.warn(
                "node {} declared node {} dead (incarnation {}, pid {} on {}: {}) and took over its {} claims; they go out again now",
                nodeId,
                d.nodeId(),
                d.epoch(),
                d.process().pid(),
                d.process().host(),
                why,
                t.claims());
    }

    private long untilSteady(long now, long steadySinceNanos) {
        return Math.max(
                SCAN_SLACK_NANOS, Math.min(intervalNanos, steadySinceNanos + windowNanos - now + SCAN_SLACK_NANOS));
    }

    /** Dead by evidence any node may use: its process ended on this machine, or it has been silent past the window. */
    boolean holderIsDead(Node holder, Instant now) {
        return ThisProcess.hasEnded(holder.process()) || silentPastWindow(holder, now);
    }

    private boolean silentPastWindow(Node n, Instant now) {
        return n.silentFor(now).compareTo(window) > 0;
    }
}

package dev.idem.engine.internal;

import dev.idem.core.store.DeliveryQueue;
import java.time.Clock;

/**
 * The queue-depth gauge ({@code idem_queue_depth}), counted at the reaper's beat, but never for more than a
 * {@link #SPACING}th of the time: a count that took {@code d} is not taken again until {@code SPACING × d} after it
 * began. The count reads every pending row (PostgreSQL has no exact estimate for part of a table), so it grows with
 * the backlog: 0.2–0.85 s per count with 280,000 deliveries due at once on the bench's machine
 * (idem-bench/runs/2026-11-27-engine-design-log.md, "Stop 27"), on every node at every beat. Under such a backlog the gauge is that much older; an empty or
 * small queue is counted at every beat as before, and so is any queue after the clock went back ({@link CostSpacing}).
 */
final class QueueDepth {
    /** At most one part in this many of the time spent counting: 2%. */
    static final int SPACING = 50;

    private final DeliveryQueue queue;
    private final Clock clock;
    private final EngineMetrics metrics;
    /** Only the maintenance thread samples. */
    private final CostSpacing spacing = new CostSpacing(0, SPACING);

    QueueDepth(DeliveryQueue queue, Clock clock, EngineMetrics metrics) {
        this.queue = queue;
        this.clock = clock;
        this.metrics = metrics;
    }

    /** Counts the pending deliveries into the gauge, unless the last count's cost says it is too soon. */
    void sample() {
        long start = clock.millis();
        if (spacing.waitMillis(start) > 0) return;
        long n = queue.depth();
        spacing.ran(start, clock.millis());
        metrics.depth(n);
    }
}

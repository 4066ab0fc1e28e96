package dev.idem.engine.internal;

import dev.idem.core.Delivery;
import dev.idem.core.store.DeliveryQueue.Claim;
import java.time.Instant;

/**
 * A claimed delivery on this node, from its claim until it is recorded or given back.
 *
 * @param owner the lease owner it was claimed as (the node's incarnation then)
 * @param destination its destination key ({@link Destinations})
 * @param claimedAtNanos {@link System#nanoTime()} at its claim: the lease runs from here
 */
record Held(Claim claim, String owner, String destination, long claimedAtNanos) {
    String id() {
        return claim.delivery().id();
    }

    Instant dueAt() {
        return dueAt(claim.delivery());
    }

    /** When a delivery is due: its retry's instant, or its occurrence's. */
    static Instant dueAt(Delivery d) {
        return d.nextAttemptAt() != null ? d.nextAttemptAt() : d.scheduledFor();
    }
}

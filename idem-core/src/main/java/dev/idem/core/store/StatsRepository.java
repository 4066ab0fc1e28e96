package dev.idem.core.store;

import dev.idem.core.Tenant;
import java.time.Instant;
import java.util.Optional;

/** Counters over one tenant's deliveries, for the dashboard; reads only. */
public interface StatsRepository {
    /**
     * What {@code tenant}'s deliveries look like at {@code now}: those that finished (succeeded or went
     * dead) since {@code since}, the dead-letter queue, the deliveries waiting for a retry, and the
     * earliest due instant among deliveries the dispatcher could claim (pending, due at or before
     * {@code now}, schedule neither paused nor deleted).
     */
    DeliveryStats deliveryStats(Tenant tenant, Instant since, Instant now);

    /**
     * @param succeeded deliveries that succeeded since the window's start
     * @param died deliveries that went dead since the window's start
     * @param dead deliveries dead now (the dead-letter queue's size)
     * @param retrying deliveries waiting for their next attempt after a failed one
     * @param oldestDue earliest due instant of a claimable delivery not yet claimed; empty when none is due
     * @param queued the queue's depth: claimable deliveries due at or before {@code now} and not yet claimed
     */
    record DeliveryStats(
            long succeeded, long died, long dead, long retrying, Optional<Instant> oldestDue, long queued) {}
}

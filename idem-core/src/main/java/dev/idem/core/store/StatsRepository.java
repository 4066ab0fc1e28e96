package dev.idem.core.store;

import dev.idem.core.Tenant;
import java.time.Instant;
import java.util.Optional;

/**
 * Counters over one tenant's deliveries, for the dashboard; reads only. Each costs the same however much history the
 * store holds: what finished in the window is read from per-second counts, and the counts of deliveries in a state
 * ({@code dead}, {@code retrying}, {@code queued}) stop at {@link #COUNT_LIMIT}.
 */
public interface StatsRepository {
    /**
     * How far the counts of deliveries in a state go: a count is exact up to this, and {@code COUNT_LIMIT + 1} stands
     * for "more than {@code COUNT_LIMIT}". Counting on would read as many index entries as the dead-letter queue or the
     * backlog is long, on every dashboard poll.
     */
    int COUNT_LIMIT = 10_000;

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
     * @param dead deliveries dead now (the dead-letter queue's size), up to {@link #COUNT_LIMIT} + 1
     * @param retrying deliveries waiting for their next attempt after a failed one, up to {@link #COUNT_LIMIT} + 1
     * @param oldestDue earliest due instant of a claimable delivery not yet claimed; empty when none is due
     * @param queued the queue's depth: claimable deliveries due at or before {@code now} and not yet claimed, up to
     *     {@link #COUNT_LIMIT} + 1
     */
    record DeliveryStats(
            long succeeded, long died, long dead, long retrying, Optional<Instant> oldestDue, long queued) {}
}

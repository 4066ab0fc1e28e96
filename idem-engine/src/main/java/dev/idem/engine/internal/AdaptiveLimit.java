package dev.idem.engine.internal;

/**
 * How many attempts one destination may have in flight: additive increase, multiplicative decrease, as TCP paces a
 * connection. An answer grows the limit while it is below where a new destination starts, and above that only while
 * the limit is what holds the destination back (at least half of it in use: as Netflix's AIMD limiter does, so a fast
 * destination that needs 20 connections is not opened 10,000): by
 * one per answer below its threshold, so it doubles every round trip and a slow but healthy destination reaches
 * thousands within a few seconds, by one per round trip above it. Each timeout, refused connection or reset halves
 * it, down to 1: a single probe, whose answer starts the growth again. A 429 or 503 changes nothing (the delivery's
 * own {@code Retry-After} spaces it).
 *
 * <p>Hand-written rather than Netflix's {@code concurrency-limits}: its limiters take latency samples and drop
 * signals through a listener per request and compute on their own schedule; here the signals are exactly three
 * kinds of outcome, the limit must be read as a number to size each claim (how many rows of this destination the
 * next claim may take), and the whole rule is the two methods below. Not thread-safe: {@link Destinations} guards it.
 */
final class AdaptiveLimit {
    private final int initial;
    private final int max;
    private double limit;
    /** Slow start (doubling per round trip) below this, one more per round trip above it. */
    private double threshold;

    AdaptiveLimit(int initial, int max) {
        this.initial = Math.min(initial, max);
        this.max = max;
        this.limit = this.initial;
        this.threshold = max;
    }

    int get() {
        return (int) limit;
    }

    /** Whether drops have brought it below where a new destination starts. */
    boolean throttled() {
        return limit < initial;
    }

    /** @param inUse the destination's attempts claimed and not yet answered, this one included */
    void onAnswer(int inUse) {
        // below the starting limit every answer counts (a throttled destination that answers recovers whatever its
        // traffic); above it, only answers while the limit binds
        if (limit >= initial && inUse * 2 < limit) return;
        limit = Math.min(max, limit < threshold ? limit + 1 : limit + 1 / limit);
    }

    void onDrop() {
        limit = Math.max(1, limit / 2);
        // recovering, it doubles back to where a new destination starts before growing slowly
        threshold = Math.max(initial, limit);
    }
}

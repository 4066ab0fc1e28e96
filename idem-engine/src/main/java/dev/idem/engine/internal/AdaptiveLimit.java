package dev.idem.engine.internal;

import java.util.concurrent.TimeUnit;

/**
 * How many attempts one destination may have in flight: additive increase, multiplicative decrease, as TCP paces a
 * connection, with a delay-based exit from slow start (as TCP's HyStart). An answer grows the limit while it is below
 * where a new destination starts, and above that only while the limit is what holds the destination back (at least
 * half of it wanted: as Netflix's AIMD limiter does, so a fast destination that needs 20 connections is not opened
 * 10,000) and the destination's answers are not slowing down: by one per answer below its threshold, so it doubles
 * every round trip and a slow but healthy destination reaches thousands within a few seconds, by one per round trip
 * above it. Each response timeout, reset or 5xx answer halves it, down to 1: a single probe, whose answer starts the
 * growth again (a failed connect is the host's, {@link HostState}). A 429 changes nothing (the delivery's own
 * {@code Retry-After} spaces it).
 *
 * <p><b>Why the round trip counts.</b> Without it a burst to a fast destination grew the limit by one per answer
 * as long as rows were waiting, to thousands of connections (measured: 2,000 connections for a burst of 10,000 to a
 * loopback receiver answering in under a millisecond, each one a thread on a thread-per-connection receiver), while
 * more connections cannot make a destination that is already answering as fast as it can answer any faster: its
 * answers only queue longer. So when the smoothed round trip is more than twice the least one seen recently (and
 * more than {@link #SLACK_NANOS} beyond it), the destination is taken to be saturated: the limit stops growing and slow
 * start ends there. A receiver that answers in 250 ms keeps its 250 ms round trip while the limit doubles, so it grows
 * until the sender's own side saturates. A slow-down that passes was noise and slow start resumes
 * ({@link #resumeSlowStartAfterASpuriousExit}).
 *
 * <p>Hand-written rather than Netflix's {@code concurrency-limits}: its limiters take latency samples and drop
 * signals through a listener per request and compute on their own schedule; here the signals are three kinds of
 * outcome and a round trip, the limit must be read as a number to size each claim (how many rows of this destination
 * the next claim may take), and the whole rule is the two methods below. Not thread-safe: {@link Destinations} guards it.
 */
final class AdaptiveLimit {
    /** Round trips within this much of the least one are not a slow-down (scheduling noise on a loaded host). */
    static final long SLACK_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    /** The least round trip is forgotten after this long, so a destination that became slower for good can grow again. */
    static final long MIN_RTT_WINDOW_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final int initial;
    private final int max;
    private double limit;
    /** Slow start (doubling per round trip) below this, one more per round trip above it. */
    private double threshold;

    private long minRttNanos = Long.MAX_VALUE;
    private long minRttSinceNanos;
    /** Smoothed round trip (weight 1/8 per answer, as TCP's SRTT), so one late answer on a loaded host is not a slow-down. */
    private double smoothedRttNanos = -1;
    /** Whether slow start ended on a slow-down (not on a drop): a slow-down that passes may have been noise. */
    private boolean endedOnDelay;
    /** Answers in a row, since slow start ended on a slow-down, with the limit binding and the round trip back near the least. */
    private int calmAnswers;

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

    /**
     * @param wanted the destination's attempts on the wire or due and waiting for a slot, this one included
     * @param rttNanos how long this attempt was on the wire
     * @param nowNanos {@link System#nanoTime()} now
     */
    void onAnswer(int wanted, long rttNanos, long nowNanos) {
        if (rttNanos <= minRttNanos || nowNanos - minRttSinceNanos > MIN_RTT_WINDOW_NANOS) {
            minRttNanos = rttNanos;
            minRttSinceNanos = nowNanos;
        }
        smoothedRttNanos = smoothedRttNanos < 0 ? rttNanos : smoothedRttNanos + (rttNanos - smoothedRttNanos) / 8;
        // below the starting limit every answer counts (a throttled destination that answers recovers whatever its
        // traffic); above it, only answers while the limit binds and the destination is not slowing down
        if (limit >= initial) {
            if (wanted * 2 < limit) return;
            if (smoothedRttNanos > 2.0 * minRttNanos && smoothedRttNanos - minRttNanos > SLACK_NANOS) {
                if (threshold > limit) endedOnDelay = true;
                threshold = Math.min(threshold, Math.max(initial, limit));
                calmAnswers = 0;
                return;
            }
            resumeSlowStartAfterASpuriousExit();
        }
        limit = Math.min(max, limit < threshold ? limit + 1 : limit + 1 / limit);
    }

    /**
     * A slow-down that ended slow start and then passed, for a whole round trip's worth of answers (one per slot) with
     * the limit binding, was noise (the first answers of a destination arrive while its connections open, the JIT
     * compiles, a loaded host stalls): slow start resumes, as TCP's HyStart++ resumes it after a spurious exit. Without
     * this, one early spike left a healthy 250 ms destination growing by one per round trip from where it stood
     * (measured: stuck near 250 in flight, under 1,000 deliveries/s, for a whole burst of 5,000).
     */
    private void resumeSlowStartAfterASpuriousExit() {
        if (!endedOnDelay) return;
        if (smoothedRttNanos - minRttNanos > Math.max(SLACK_NANOS, minRttNanos / 8.0)) {
            calmAnswers = 0;
            return;
        }
        if (++calmAnswers < limit) return;
        threshold = max;
        endedOnDelay = false;
        calmAnswers = 0;
    }

    void onDrop() {
        endedOnDelay = false;
        calmAnswers = 0;
        limit = Math.max(1, limit / 2);
        // recovering, it doubles back to where a new destination starts before growing slowly
        threshold = Math.max(initial, limit);
    }
}

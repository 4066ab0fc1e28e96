package dev.idem.engine.internal;

import java.util.ArrayDeque;

/**
 * One destination (an endpoint URL without its query): its {@link AdaptiveLimit}, its deliveries claimed and not yet
 * answered, those on the wire, and those waiting for a slot. Guarded by its {@link HostState}'s monitor.
 *
 * @param <T> what waits for a slot
 */
final class PathState<T> {
    /**
     * A claim may take, beyond a destination's free slots, about as many rows as the destination answered in the last
     * half second to second (two buckets of this length): they wait in memory and go on the wire as slots free, so the
     * wire stays full between two claims. A destination that answers nothing (hanging, or new) gets no such rows, and
     * what a claim takes beyond the limit drains within about a second, well before a claimed row's longest wait (2 s).
     */
    static final long RATE_BUCKET_NANOS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(500);

    final String key;
    final AdaptiveLimit limit;
    /** Claimed and not answered yet: on the wire, waiting for a slot, or held until due. */
    int active;
    /** On the wire. */
    int started;

    final ArrayDeque<Waiting<T>> waiting = new ArrayDeque<>();
    /** Whether it is in its host's turns (it has, or had, items waiting). */
    boolean inTurns;
    /** Whether it has attempts on the wire or waiting: it counts among the paths sharing its host. */
    boolean busy;

    boolean throttled;
    int drops;
    long lastUsedNanos = System.nanoTime();
    /** Answers in the current and the previous {@link #RATE_BUCKET_NANOS}: what the path took lately. */
    private int answersNow;

    private int answersBefore;
    private long bucketStartNanos = System.nanoTime();

    record Waiting<T>(T item, long sinceNanos) {}

    PathState(String key, int initial, int max) {
        this.key = key;
        this.limit = new AdaptiveLimit(initial, max);
    }

    /** Answers in the last one to two buckets. */
    int recentAnswers(long now) {
        long elapsed = now - bucketStartNanos;
        if (elapsed >= RATE_BUCKET_NANOS) {
            answersBefore = elapsed >= 2 * RATE_BUCKET_NANOS ? 0 : answersNow;
            answersNow = 0;
            bucketStartNanos = now - elapsed % RATE_BUCKET_NANOS;
        }
        return answersNow + answersBefore;
    }

    void countAnswer(long now) {
        recentAnswers(now);
        answersNow++;
    }

    /** How many more of it a claim may take on its own account: its limit and recent answers, less what it holds. */
    int room(long now, int max) {
        long room = (long) limit.get() + recentAnswers(now) - active;
        return (int) Math.max(0, Math.min(max, room));
    }
}

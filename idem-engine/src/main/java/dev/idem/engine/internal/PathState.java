package dev.idem.engine.internal;

import java.util.ArrayDeque;

/**
 * One destination (an endpoint URL without its query): its {@link AdaptiveLimit}, its deliveries claimed and not yet
 * answered, those on the wire, and those waiting for a slot. Guarded by its {@link HostState}'s monitor.
 *
 * @param <T> what waits for a slot
 */
final class PathState<T> {
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
    /** Answers in the current and the previous {@link Destinations#RATE_BUCKET_NANOS}: what the path took lately. */
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
        if (elapsed >= Destinations.RATE_BUCKET_NANOS) {
            answersBefore = elapsed >= 2 * Destinations.RATE_BUCKET_NANOS ? 0 : answersNow;
            answersNow = 0;
            bucketStartNanos = now - elapsed % Destinations.RATE_BUCKET_NANOS;
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

package dev.idem.engine.internal;

import dev.idem.core.store.DeliveryQueue.Fairness;
import dev.idem.engine.internal.AttemptResult.Congestion;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's in-memory state per destination (scheme, host, port): its {@link AdaptiveLimit}, the deliveries
 * claimed for it and not yet answered, those on the wire, and those waiting for one of its slots. Claims ask
 * {@link #fairness()} how many rows of each destination they may take, so a congested destination's backlog stays in
 * the table; a destination whose limit falls below the starting one is throttled, logged once when it becomes so and
 * once when it recovers. State of a destination idle for {@link #IDLE_NANOS} is forgotten.
 *
 * @param <T> what waits for a slot
 */
final class Destinations<T> {
    private static final Logger log = LoggerFactory.getLogger(Destinations.class);
    static final long IDLE_NANOS = java.util.concurrent.TimeUnit.MINUTES.toNanos(10);
    /**
     * A claim may take, beyond a destination's free slots, about as many rows as the destination answered in the last
     * half second to second (two buckets of this length): they wait in memory and go on the wire as slots free, so the
     * wire stays full between two claims. A destination that answers nothing (hanging, or new) gets no such rows, and
     * what a claim takes beyond the limit drains within about a second, well before {@link Dispatcher#MAX_WAIT}.
     */
    static final long RATE_BUCKET_NANOS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(500);

    private final int initial;
    private final int max;
    private final Map<String, State<T>> states = new ConcurrentHashMap<>();

    private static final class State<T> {
        final AdaptiveLimit limit;
        /** Claimed and not answered yet: on the wire, waiting for a slot, or held until due. */
        int active;
        /** On the wire. */
        int started;

        final ArrayDeque<Waiting<T>> waiting = new ArrayDeque<>();
        boolean throttled;
        int drops;
        long lastUsedNanos = System.nanoTime();
        /** Answers in the current and the previous {@link #RATE_BUCKET_NANOS}: what the destination took lately. */
        int answersNow;

        int answersBefore;
        long bucketStartNanos = System.nanoTime();

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

        State(int initial, int max) {
            limit = new AdaptiveLimit(initial, max);
        }
    }

    private record Waiting<T>(T item, long sinceNanos) {}

    /**
     * @param initial the limit of a destination not seen before (or forgotten)
     * @param max the most any destination may have in flight (the node's own bound)
     */
    Destinations(int initial, int max) {
        this.initial = Math.min(initial, max);
        this.max = max;
    }

    private State<T> state(String key) {
        return states.computeIfAbsent(key, k -> new State<>(initial, max));
    }

    /**
     * How many more of each destination the next claim may take: its limit and what it answered lately, less what is
     * claimed and not answered yet. A destination not listed may have {@code initial}.
     */
    Fairness fairness() {
        Map<String, Integer> free = new HashMap<>();
        long now = System.nanoTime();
        states.forEach((key, s) -> {
            synchronized (s) {
                long room = (long) s.limit.get() + s.recentAnswers(now) - s.active;
                int f = (int) Math.max(0, Math.min(max, room));
                if (f != initial) free.put(key, f);
            }
        });
        return new Fairness(free, initial);
    }

    /** Counts a claimed delivery against its destination until {@link #answered}. */
    void claimed(String key) {
        State<T> s = state(key);
        synchronized (s) {
            s.active++;
            s.lastUsedNanos = System.nanoTime();
        }
    }

    /** Takes a slot for {@code item} and returns true, or parks it until one frees (then {@link #answered} returns it). */
    boolean startOrWait(String key, T item) {
        State<T> s = state(key);
        synchronized (s) {
            if (s.started < s.limit.get() && s.waiting.isEmpty()) {
                s.started++;
                return true;
            }
            s.waiting.add(new Waiting<>(item, System.nanoTime()));
            return false;
        }
    }

    /**
     * An attempt of {@code key} ended with {@code signal} after {@code rttNanos} on the wire: frees its slot, adapts the
     * limit, and returns the waiting items that may start now (their slots taken).
     */
    List<T> answered(String key, Congestion signal, long rttNanos) {
        State<T> s = state(key);
        List<T> next = new ArrayList<>(1);
        String change = null;
        long now = System.nanoTime();
        synchronized (s) {
            if (signal == Congestion.ANSWER) {
                // wanted: on the wire and due but waiting (rows claimed ahead of their instant are not wanted yet)
                s.limit.onAnswer(s.started + s.waiting.size(), rttNanos, now);
                s.recentAnswers(now);
                s.answersNow++;
            }
            s.started--;
            s.active--;
            s.lastUsedNanos = now;
            if (signal == Congestion.DROP) {
                s.limit.onDrop();
                s.drops++;
            }
            boolean throttled = s.limit.throttled();
            if (throttled != s.throttled) {
                s.throttled = throttled;
                change = throttled
                        ? "throttled after " + s.drops + " timeouts, refused connections or resets: at most "
                                + s.limit.get() + " attempt(s) at once until it answers again"
                        : "answering again: no longer throttled";
                if (!throttled) s.drops = 0;
            }
            while (!s.waiting.isEmpty() && s.started < s.limit.get()) {
                s.started++;
                next.add(s.waiting.poll().item());
            }
        }
        if (change != null) log.info("destination {} {}", key, change);
        return next;
    }

    /** Takes back a claimed delivery that was never started (given back to the queue). */
    void forget(String key) {
        State<T> s = state(key);
        synchronized (s) {
            s.active--;
        }
    }

    /** Removes and returns the items that have waited longer than {@code nanos}; they no longer count as claimed. */
    List<T> waitedLongerThan(long nanos) {
        List<T> out = new ArrayList<>();
        long now = System.nanoTime();
        for (Iterator<Map.Entry<String, State<T>>> it = states.entrySet().iterator(); it.hasNext(); ) {
            State<T> s = it.next().getValue();
            synchronized (s) {
                while (!s.waiting.isEmpty() && now - s.waiting.peek().sinceNanos() > nanos) {
                    out.add(s.waiting.poll().item());
                    s.active--;
                }
                if (s.active == 0 && !s.throttled && now - s.lastUsedNanos > IDLE_NANOS) it.remove();
            }
        }
        return out;
    }

    /** Removes and returns every waiting item (shutdown). */
    List<T> drainWaiting() {
        return waitedLongerThan(-1);
    }

    /** Destinations whose limit drops have brought below the starting one. */
    int throttled() {
        int n = 0;
        for (State<T> s : states.values()) {
            synchronized (s) {
                if (s.throttled) n++;
            }
        }
        return n;
    }

    /** The current limit of a destination (tests, logs). */
    int limitOf(String key) {
        State<T> s = states.get(key);
        if (s == null) return initial;
        synchronized (s) {
            return s.limit.get();
        }
    }
}

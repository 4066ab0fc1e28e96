package dev.idem.engine.internal;

import dev.idem.core.Destination;
import dev.idem.core.store.DeliveryQueue.Fairness;
import dev.idem.engine.internal.AttemptResult.Congestion;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's in-memory state per destination (an endpoint URL without its query, {@link Destination}) and, under them,
 * per host and port ({@link HostState}). Each destination has its {@link AdaptiveLimit}: response timeouts, resets and
 * 5xx answers shrink it, other answers grow it, so one hanging or failing path of a host holds a single probe while the
 * host's other paths go on. The host holds what is the host's: a cap on connections at once shared among its paths in
 * turn, and throttling after failed connects. Claims ask {@link #fairness()} how many rows of each destination they may take, so a congested
 * destination's backlog stays in the table; a destination whose limit falls below the starting one is throttled, logged
 * once when it becomes so and once when it recovers, and likewise a host. State idle for {@link #IDLE_NANOS} is
 * forgotten.
 *
 * @param <T> what waits for a slot
 */
final class Destinations<T> {
    private static final Logger log = LoggerFactory.getLogger(Destinations.class);
    static final long IDLE_NANOS = java.util.concurrent.TimeUnit.MINUTES.toNanos(10);

    private final int initial;
    private final int max;
    private final int perHost;
    private final Map<String, HostState<T>> hosts = new ConcurrentHashMap<>();

    /**
     * @param initial the limit of a destination not seen before (or forgotten)
     * @param max the most any destination may have in flight (the node's own bound)
     * @param perHost the most attempts on the wire at once to one host and port, all its destinations together
     */
    Destinations(int initial, int max, int perHost) {
        this.initial = Math.min(initial, max);
        this.max = max;
        this.perHost = perHost;
    }

    /** Runs {@code f} on the destination's state under its host's monitor. */
    private <R> R on(String key, BiFunction<HostState<T>, PathState<T>, R> f) {
        String hostKey = Destination.hostOf(key);
        while (true) {
            HostState<T> h = hosts.computeIfAbsent(hostKey, k -> new HostState<>(k, perHost));
            synchronized (h) {
                if (h.removed) continue;
                PathState<T> p = h.paths.computeIfAbsent(key, k -> new PathState<>(k, initial, max));
                return f.apply(h, p);
            }
        }
    }

    private HostState<T> hostOf(String key) {
        return hosts.get(Destination.hostOf(key));
    }

    /**
     * How many more of each destination the next claim may take: its limit and what it answered lately, less what is
     * claimed and not answered yet, within its host's share. A destination not listed may have {@code initial}.
     */
    Fairness fairness() {
        Map<String, Integer> free = new HashMap<>();
        long now = System.nanoTime();
        for (HostState<T> h : hosts.values()) {
            synchronized (h) {
                h.fairness(now, max).forEach((key, f) -> {
                    if (f != initial) free.put(key, f);
                });
            }
        }
        return new Fairness(free, initial);
    }

    /** Counts a claimed delivery against its destination until {@link #answered}. */
    void claimed(String key) {
        on(key, (h, p) -> {
            p.active++;
            h.active++;
            p.lastUsedNanos = System.nanoTime();
            return null;
        });
    }

    /** Takes a slot for {@code item} and returns true, or parks it until one frees (then {@link #answered} returns it). */
    boolean startOrWait(String key, T item) {
        return on(key, (h, p) -> h.startOrWait(p, item));
    }

    /**
     * An attempt of {@code key} ended with {@code signal} after {@code rttNanos} on the wire: frees its slot, adapts the
     * limits, and returns the waiting items that may start now (their slots taken), of this destination or another of
     * its host.
     */
    List<T> answered(String key, Congestion signal, long rttNanos) {
        List<T> next = new ArrayList<>(1);
        String[] change = new String[2];
        long now = System.nanoTime();
        on(key, (h, p) -> {
            if (signal == Congestion.ANSWER) {
                // wanted: on the wire and due but waiting (rows claimed ahead of their instant are not wanted yet)
                p.limit.onAnswer(p.started + p.waiting.size(), rttNanos, now);
                p.countAnswer(now);
            }
            h.ended(p);
            p.lastUsedNanos = now;
            h.lastUsedNanos = now;
            if (signal == Congestion.DROP || signal == Congestion.SERVER_ERROR) {
                p.limit.onDrop();
                p.drops++;
            }
            // any response means the host took the connection, a 5xx included
            if (signal == Congestion.ANSWER || signal == Congestion.BACK_OFF || signal == Congestion.SERVER_ERROR)
                h.connected();
            if (signal == Congestion.UNREACHABLE) h.connectFailed();
            boolean throttled = p.limit.throttled();
            if (throttled != p.throttled) {
                p.throttled = throttled;
                change[0] = throttled
                        ? "throttled after " + p.drops + " timeouts, resets or 5xx answers: at most " + p.limit.get()
                                + " attempt(s) at once until it answers again"
                        : "answering again: no longer throttled";
                if (!throttled) p.drops = 0;
            }
            boolean hostThrottled = h.belowInitial(initial);
            if (hostThrottled != h.throttled) {
                h.throttled = hostThrottled;
                change[1] = hostThrottled
                        ? "throttled after " + h.failedConnects + " failed connects: at most " + h.limit()
                                + " connection(s) at once for all its paths until one is made"
                        : "accepting connections again: no longer throttled";
            }
            h.drain(next);
            return null;
        });
        if (change[0] != null) log.info("destination {} {}", key, change[0]);
        if (change[1] != null) log.info("host {} {}", Destination.hostOf(key), change[1]);
        return next;
    }

    /** Takes back a claimed delivery that was never started (given back to the queue). */
    void forget(String key) {
        on(key, (h, p) -> {
            p.active--;
            h.active--;
            return null;
        });
    }

    /** Removes and returns the items that have waited longer than {@code nanos}; they no longer count as claimed. */
    List<T> waitedLongerThan(long nanos) {
        List<T> out = new ArrayList<>();
        long now = System.nanoTime();
        for (Iterator<HostState<T>> it = hosts.values().iterator(); it.hasNext(); ) {
            HostState<T> h = it.next();
            synchronized (h) {
                for (PathState<T> p : List.copyOf(h.paths.values())) {
                    while (!p.waiting.isEmpty() && now - p.waiting.peek().sinceNanos() > nanos) {
                        out.add(p.waiting.poll().item());
                        p.active--;
                        h.active--;
                    }
                    h.busy(p);
                    if (p.active == 0 && !p.throttled && now - p.lastUsedNanos > IDLE_NANOS) h.forget(p);
                }
                if (h.paths.isEmpty() && h.active == 0 && !h.throttled && now - h.lastUsedNanos > IDLE_NANOS) {
                    h.removed = true;
                    it.remove();
                }
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
        for (HostState<T> h : hosts.values()) {
            synchronized (h) {
                for (PathState<T> p : h.paths.values()) if (p.throttled) n++;
            }
        }
        return n;
    }

    /** Hosts whose failed connects have brought their connections at once below a new destination's limit. */
    int hostsThrottled() {
        int n = 0;
        for (HostState<T> h : hosts.values()) {
            synchronized (h) {
                if (h.throttled) n++;
            }
        }
        return n;
    }

    /** The current limit of a destination (tests, logs). */
    int limitOf(String key) {
        HostState<T> h = hostOf(key);
        if (h == null) return initial;
        synchronized (h) {
            PathState<T> p = h.paths.get(key);
            return p == null ? initial : p.limit.get();
        }
    }

    /** The current connections at once of a host and port ({@code scheme://host:port}; tests). */
    int hostLimitOf(String hostKey) {
        HostState<T> h = hosts.get(hostKey);
        if (h == null) return perHost;
        synchronized (h) {
            return h.limit();
        }
    }
}

package dev.idem.engine.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One host and port under its paths ({@link PathState}): what is the host's rather than one path's. Two things:
 *
 * <ul>
 *   <li><b>Connections at once</b>, at most {@code cap} ({@code maxConnectionsPerHost}) over all its paths, shared among
 *       the paths with work. Slots that free go to the waiting paths in turn (round robin), one each per turn. The last
 *       {@link #headroom()} free connections go only to a path holding fewer than its share
 *       ({@code cap / (paths with work + 1)}), so paths that hang cannot take every connection before another path's
 *       work arrives: a newcomer starts at once, up to its share, while the others' requests hang.</li>
 *   <li><b>Throttling after failed connects</b> (refused, unreachable, connect timeout, a name that does not resolve, a
 *       failed TLS handshake): each halves the host's connections at once, down to one for all its paths; each answer
 *       from any path adds one back (doubling every round trip), up to {@code cap}. A response timeout, a reset or a 5xx
 *       is the path's ({@link AdaptiveLimit}) and leaves the host alone.</li>
 * </ul>
 *
 * Not thread-safe: {@link Destinations} holds its monitor for every change to it or to its paths.
 *
 * @param <T> what waits for a slot
 */
final class HostState<T> {
    final String key;
    private final int cap;
    private double connectLimit;
    /** On the wire, all paths. */
    int started;
    /** Claimed and not answered, all paths. */
    int active;

    final Map<String, PathState<T>> paths = new HashMap<>();
    /** Paths with items waiting, in turn order. */
    private final ArrayDeque<PathState<T>> turns = new ArrayDeque<>();
    /** Paths with attempts on the wire or waiting. */
    private int busyPaths;

    boolean throttled;
    int failedConnects;
    long lastUsedNanos = System.nanoTime();
    /** Set when forgotten: a caller that looked it up just before must look again. */
    boolean removed;

    HostState(String key, int cap) {
        this.key = key;
        this.cap = cap;
        this.connectLimit = cap;
    }

    /** Connections at once now: the cap, or less after failed connects. */
    int limit() {
        return (int) Math.min(cap, connectLimit);
    }

    /** The free connections kept for paths below their share: a twentieth of the limit, at least one. */
    int headroom() {
        return Math.max(1, limit() / 20);
    }

    private boolean mayStart(PathState<T> p) {
        if (p.started >= p.limit.get()) return false;
        int free = limit() - started;
        if (free <= 0) return false;
        if (free > headroom()) return true;
        int sharing = busyPaths + (p.busy ? 0 : 1);
        return p.started < Math.max(1, limit() / (sharing + 1));
    }

    /** Takes a slot for {@code item} and returns true, or makes it wait for its turn. */
    boolean startOrWait(PathState<T> p, T item) {
        if (p.waiting.isEmpty() && mayStart(p)) {
            p.started++;
            started++;
            busy(p);
            return true;
        }
        p.waiting.add(new PathState.Waiting<>(item, System.nanoTime()));
        if (!p.inTurns) {
            p.inTurns = true;
            turns.add(p);
        }
        busy(p);
        return false;
    }

    /** An attempt of {@code p} left the wire. */
    void ended(PathState<T> p) {
        p.started--;
        p.active--;
        started--;
        active--;
        busy(p);
    }

    /** A connection was made (the host answered): one more connection at once, up to the cap. */
    void connected() {
        if (connectLimit < cap) connectLimit = Math.min(cap, connectLimit + 1);
        failedConnects = 0;
    }

    /** No connection could be made: half as many at once, down to one. */
    void connectFailed() {
        connectLimit = Math.max(1, connectLimit / 2);
        failedConnects++;
    }

    /** Whether failed connects brought it below where a new path starts: logged and counted as throttled. */
    boolean belowInitial(int initial) {
        return limit() < Math.min(cap, initial);
    }

    /** Starts waiting items while the host has room: one per path per turn, in turn order; returns them. */
    void drain(List<T> out) {
        int misses = 0;
        while (!turns.isEmpty() && started < limit() && misses < turns.size()) {
            PathState<T> p = turns.poll();
            if (p.waiting.isEmpty()) {
                p.inTurns = false;
                continue;
            }
            if (mayStart(p)) {
                p.started++;
                started++;
                out.add(p.waiting.poll().item());
                misses = 0;
            } else misses++;
            if (p.waiting.isEmpty()) {
                p.inTurns = false;
                busy(p);
            } else turns.add(p);
        }
    }

    /** Keeps {@link #busyPaths} in step with {@code p}. */
    void busy(PathState<T> p) {
        boolean b = p.started > 0 || !p.waiting.isEmpty();
        if (b == p.busy) return;
        p.busy = b;
        busyPaths += b ? 1 : -1;
    }

    void forget(PathState<T> p) {
        paths.remove(p.key);
        if (p.inTurns) turns.remove(p);
        if (p.busy) busyPaths--;
    }

    /**
     * How many more of each of its paths a claim may take: each path's own room, within the host's room (its limit and
     * what its paths answered lately, less what they hold) shared max-min fairly, so a path wanting less than an equal
     * share gets what it wants and the others split the rest.
     */
    Map<String, Integer> fairness(long now, int max) {
        List<PathState<T>> list = new ArrayList<>(paths.values());
        int[] want = new int[list.size()];
        long recent = 0;
        for (int i = 0; i < want.length; i++) {
            PathState<T> p = list.get(i);
            recent += p.recentAnswers(now);
            want[i] = p.room(now, max);
        }
        long room = Math.max(0, limit() + recent - active);
        Integer[] order = new Integer[want.length];
        for (int i = 0; i < order.length; i++) order[i] = i;
        Arrays.sort(order, (a, b) -> Integer.compare(want[a], want[b]));
        Map<String, Integer> free = new HashMap<>();
        for (int k = 0; k < order.length; k++) {
            int i = order[k];
            long share = room / (order.length - k);
            int give = (int) Math.min(want[i], share);
            room -= give;
            free.put(list.get(i).key, give);
        }
        return free;
    }
}

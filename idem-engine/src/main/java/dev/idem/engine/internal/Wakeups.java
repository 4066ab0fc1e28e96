package dev.idem.engine.internal;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The dispatcher's sleeps and what ends them, made before anything that wakes them (the node's liveness, the
 * materialiser, the store's due signals) so each can be handed the wake-up it calls. Claim loops sleep on one
 * {@link Wakeup} each (the first registered follows the timer: the primary), the pass-over loop on its own.
 */
public final class Wakeups {
    private final List<Wakeup> loops = new CopyOnWriteArrayList<>();
    private final Wakeup passOver = new Wakeup();
    /** Destinations whose last claim took every free slot: more of their rows are probably due in the table. */
    private final Set<String> backlogged = ConcurrentHashMap.newKeySet();

    /** Wakes every claim loop: a delivery may be due now, or node slots freed. Cheap, from any thread. */
    public void all() {
        for (Wakeup w : loops) w.signal();
    }

    /** A new claim loop's sleep; the first one made is the primary. */
    Wakeup register() {
        Wakeup w = new Wakeup();
        loops.add(w);
        return w;
    }

    boolean isPrimary(Wakeup w) {
        return !loops.isEmpty() && loops.get(0) == w;
    }

    /** The claim loops other than the primary: a full claim left more due rows behind. */
    void others() {
        for (int i = 1; i < loops.size(); i++) loops.get(i).signal();
    }

    Wakeup passOver() {
        return passOver;
    }

    /** Marks whether {@code destination}'s last claim took every free slot it had. */
    void backlogged(String destination, boolean full) {
        if (full) backlogged.add(destination);
        else backlogged.remove(destination);
    }

    /** An attempt of {@code destination} left the wire: if its backlog stayed in the table, the primary claims more. */
    void answered(String destination) {
        if (!loops.isEmpty() && backlogged.contains(destination)) loops.get(0).signal();
    }
}

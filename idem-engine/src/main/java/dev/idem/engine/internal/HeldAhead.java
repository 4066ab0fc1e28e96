package dev.idem.engine.internal;

import dev.idem.core.store.DeliveryQueue;
import dev.idem.core.store.DeliveryQueue.Claim;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claimed deliveries start at their due instant, never before: those due already start at once, those claimed within
 * the look-ahead ({@link dev.idem.core.DueSoon#LOOKAHEAD}) are held here until then. A held row is checked again
 * {@link #CONFIRM_BEFORE} before its instant ({@link DeliveryQueue#confirmHeld}), so a pause, a delete or a change of
 * its schedule that lands while it is held still stops it. Rows held ahead count against their destination and the
 * node's slots like any claim.
 */
final class HeldAhead {
    private static final Logger log = LoggerFactory.getLogger(HeldAhead.class);
    /**
     * How long before its instant a row held ahead is checked against its schedule; a row claimed this close to its
     * instant starts unchecked. A pause, delete or change committed within this much of an instant may therefore not
     * stop that occurrence (it was, to the engine, already starting). Long enough for the check's round trip on a
     * loaded node, so the check does not make the start late.
     */
    static final Duration CONFIRM_BEFORE = Duration.ofMillis(100);
    /**
     * Rows held ahead are checked in groups whose checks fall due within this much of each other, each group at its
     * earliest row's time: a row is checked between {@link #CONFIRM_BEFORE} and this much more before its instant, and
     * a steady flow costs at most one check per this interval rather than one per row.
     */
    private static final long CONFIRM_SPREAD_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private final DeliveryQueue queue;
    private final Clock clock;
    private final Tasks tasks;
    private final Destinations<Held> destinations;
    private final SlotLedger ledger;
    private final AttemptLifecycle lifecycle;
    private final String nodeId;
    private final long maxWaitNanos;

    /** Held until their instant, by delivery id: whoever removes one first (its timer, or the give-back) owns it. */
    private final Map<String, Held> ahead = new ConcurrentHashMap<>();
    /** Rows whose check is due; one check at a time takes all of them in one round trip. */
    private final Queue<Held> confirmQueue = new ConcurrentLinkedQueue<>();
    /** Whether a check is queued or running on a worker. */
    private final AtomicBoolean confirming = new AtomicBoolean();

    HeldAhead(
            DeliveryQueue queue,
            Clock clock,
            Tasks tasks,
            Destinations<Held> destinations,
            SlotLedger ledger,
            AttemptLifecycle lifecycle,
            String nodeId,
            Duration lookahead) {
        this.queue = queue;
        this.clock = clock;
        this.tasks = tasks;
        this.destinations = destinations;
        this.ledger = ledger;
        this.lifecycle = lifecycle;
        this.nodeId = nodeId;
        this.maxWaitNanos = lookahead.toNanos();
    }

    /** Starts each claim at its due instant, in the order given. */
    void startAtTheirInstants(List<Held> claims) {
        Instant at = clock.instant();
        // rows whose checks fall due within CONFIRM_SPREAD of each other are checked together: one round trip each
        Map<Long, List<Held>> toCheck = new TreeMap<>();
        for (Held h : claims) {
            long waitNanos = Duration.between(at, h.dueAt()).toNanos();
            if (waitNanos <= 0) {
                lifecycle.begin(h);
                continue;
            }
            ahead.put(h.id(), h);
            if (waitNanos <= CONFIRM_BEFORE.toNanos()) startAtInstant(h, waitNanos);
            else
                toCheck.computeIfAbsent(
                                (waitNanos - CONFIRM_BEFORE.toNanos()) / CONFIRM_SPREAD_NANOS, k -> new ArrayList<>())
                        .add(h);
        }
        toCheck.forEach((bucket, hs) -> {
            if (!tasks.after(bucket * CONFIRM_SPREAD_NANOS, () -> toConfirm(hs))) hs.forEach(this::keepUnstarted);
        });
    }

    /** Removes and returns every row still held (shutdown): they no longer count against their destination. */
    List<Held> drain() {
        List<Held> out = new ArrayList<>();
        for (Held h : List.copyOf(ahead.values()))
            if (ahead.remove(h.id(), h)) {
                destinations.forget(h.destination());
                out.add(h);
            }
        return out;
    }

    /** Starts a held row at its instant, unless something else (the give-back at shutdown) took it first. */
    private void startAtInstant(Held h, long waitNanos) {
        // nanoseconds, not milliseconds: a wait truncated to the millisecond would start it before its instant
        boolean timed = tasks.after(Math.min(waitNanos, maxWaitNanos), () -> {
            if (ahead.remove(h.id(), h)) lifecycle.begin(h);
        });
        if (!timed) keepUnstarted(h);
    }

    private void keepUnstarted(Held h) {
        if (ahead.remove(h.id(), h)) lifecycle.keepUnstarted(h);
    }

    private void toConfirm(List<Held> hs) {
        confirmQueue.addAll(hs);
        // shutting down when refused: what is still held is given back at shutdown
        if (confirming.compareAndSet(false, true) && !tasks.run(this::confirmQueued)) confirming.set(false);
    }

    /**
     * Checks every queued row against its schedule: those confirmed start at their instant, the others were settled by
     * the store (given back, cancelled, or no longer this node's) and stop counting here. When the check fails the rows
     * are given back rather than sent unchecked.
     */
    private void confirmQueued() {
        try {
            Map<String, List<Held>> byOwner = new HashMap<>();
            for (Held h; (h = confirmQueue.poll()) != null; )
                if (ahead.get(h.id()) == h)
                    byOwner.computeIfAbsent(h.owner(), o -> new ArrayList<>()).add(h);
            byOwner.forEach(this::confirm);
        } finally {
            confirming.set(false);
            if (!confirmQueue.isEmpty()) toConfirm(List.of());
        }
    }

    private void confirm(String owner, List<Held> batch) {
        Set<String> ok = new HashSet<>();
        boolean checked = false;
        try {
            for (Claim c :
                    queue.confirmHeld(owner, batch.stream().map(Held::claim).toList()))
                ok.add(c.delivery().id());
            checked = true;
        } catch (RuntimeException e) {
            log.warn(
                    "node {} could not check {} deliveries held ahead against their schedules; they go back to the queue unattempted: {}",
                    nodeId,
                    batch.size(),
                    e.toString());
        }
        Instant at = clock.instant();
        List<Held> back = new ArrayList<>();
        for (Held h : batch) {
            if (ok.contains(h.id())) {
                long waitNanos = Duration.between(at, h.dueAt()).toNanos();
                if (waitNanos > 0) startAtInstant(h, waitNanos);
                else if (ahead.remove(h.id(), h)) lifecycle.begin(h);
            } else if (ahead.remove(h.id(), h)) {
                destinations.forget(h.destination());
                // settled by the store (given back, cancelled, or no longer held as this claim), or to give back
                if (checked) ledger.done(h);
                else back.add(h);
            }
        }
        ledger.giveBack(back);
    }
}

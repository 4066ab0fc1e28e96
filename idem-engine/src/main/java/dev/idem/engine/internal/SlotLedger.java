package dev.idem.engine.internal;

import dev.idem.core.store.DeliveryQueue;
import dev.idem.core.store.DeliveryQueue.Claim;
import dev.idem.engine.EngineConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's claims from the store's side: at most {@link EngineConfig#maxInFlight()} of them not yet finished
 * (reserved for a claim, on the wire, waiting for a slot, held ahead, or being recorded), and which deliveries they
 * are. A claim ends here once: {@link #done} (recorded, or settled by the store), {@link #lost} (this node can no
 * longer vouch for it), or {@link #giveBack} (returned to the queue unattempted). After a claim failed, its commit may
 * have gone through with the answer lost: every lease this node holds beyond those it knows is then such a claim, and
 * {@link #releaseLostClaims()} returns them before the next claim instead of waiting for their lease to expire.
 */
final class SlotLedger {
    private static final Logger log = LoggerFactory.getLogger(SlotLedger.class);

    private final DeliveryQueue queue;
    private final ClaimGate gate;
    private final Wakeups wakeups;
    private final int max;
    private final String nodeId;

    /** Claims not yet finished, reserved ones included: at most {@link #max}. */
    private final AtomicInteger slots = new AtomicInteger();
    /** Deliveries this node claimed and has not finished. */
    private final Set<String> held = ConcurrentHashMap.newKeySet();
    /** Claims hold it shared from their query until their rows are in {@link #held}; the release holds it alone. */
    private final ReadWriteLock claimLock = new ReentrantReadWriteLock();
    /** Set when a claim failed (its commit may have gone through) or a claim was {@linkplain #lost lost}. */
    private volatile boolean lostClaimPossible;
    /** Whether a claim loop is waiting for slots: only then does a finished claim wake the loops. */
    private volatile boolean waitingForSlots;

    SlotLedger(DeliveryQueue queue, ClaimGate gate, Wakeups wakeups, EngineConfig config) {
        this.queue = queue;
        this.gate = gate;
        this.wakeups = wakeups;
        this.max = config.maxInFlight();
        this.nodeId = config.nodeId();
    }

    /** Claims not yet finished. */
    int taken() {
        return slots.get();
    }

    int free() {
        return Math.max(0, max - slots.get());
    }

    /** Takes {@code n} slots for a claim, all or none (another loop may be claiming too). */
    boolean reserve(int n) {
        while (true) {
            int now = slots.get();
            if (now + n > max) return false;
            if (slots.compareAndSet(now, now + n)) return true;
        }
    }

    /**
     * Runs {@code claim} as {@code owner} on {@code reserved} slots already {@linkplain #reserve reserved}, keeps a
     * slot for each row it returns and frees the rest. A claim made as an incarnation declared dead meanwhile is
     * returned at once: nobody else would return it. A claim that fails frees its slots and throws.
     */
    List<Claim> claim(int reserved, String owner, Supplier<List<Claim>> claim) {
        List<Claim> claims;
        claimLock.readLock().lock();
        try {
            claims = claim.get();
            if (!owner.equals(gate.owner())) {
                queue.release(owner);
                claims = List.of();
            }
            for (Claim c : claims) held.add(c.delivery().id());
        } catch (RuntimeException | Error e) {
            lostClaimPossible = true;
            slots.addAndGet(-reserved);
            throw e;
        } finally {
            claimLock.readLock().unlock();
        }
        slots.addAndGet(claims.size() - reserved);
        return claims;
    }

    /** The claim is finished: recorded, given up on, or settled by the store. */
    void done(Held h) {
        held.remove(h.id());
        slots.decrementAndGet();
        if (waitingForSlots) wakeups.all();
    }

    /**
     * This node can no longer vouch for the claim (stale liveness): it is not sent, and if the lease is still this
     * node's the release before the next claim returns it.
     */
    void lost(Held h) {
        done(h);
        // only once it is out of `held` may the release return it
        lostClaimPossible = true;
    }

    /** Returns claims that were never attempted to the queue, their attempt not counted. */
    void giveBack(List<Held> unattempted) {
        if (unattempted.isEmpty()) return;
        try {
            Map<String, List<Claim>> byOwner = new HashMap<>();
            for (Held h : unattempted)
                byOwner.computeIfAbsent(h.owner(), o -> new ArrayList<>()).add(h.claim());
            byOwner.forEach(queue::unclaim);
        } catch (RuntimeException e) {
            log.warn(
                    "node {} could not give back {} unattempted deliveries; they return when their lease expires: {}",
                    nodeId,
                    unattempted.size(),
                    e.toString());
        }
        for (Held h : unattempted) done(h);
    }

    /**
     * Returns to the queue what this node holds but is not sending, when a claim may have been lost since the last
     * call. Throws (and stays due) while the store is still away.
     */
    void releaseLostClaims() {
        if (!lostClaimPossible) return;
        claimLock.writeLock().lock();
        try {
            // cleared before `held` is read: a claim lost meanwhile sets it again for the next round
            lostClaimPossible = false;
            int released;
            try {
                released = queue.releaseExcept(gate.owner(), List.copyOf(held));
            } catch (RuntimeException e) {
                lostClaimPossible = true;
                throw e;
            }
            if (released > 0)
                log.warn(
                        "node {} released {} deliveries it held but was not sending (a claim's answer was lost); they go out again now",
                        nodeId,
                        released);
        } finally {
            claimLock.writeLock().unlock();
        }
    }

    /** Sleeps on {@code wakeup} until {@code wanted} slots are free, at most {@code nanos}, or {@code running} turns false. */
    void awaitSlots(Wakeup wakeup, long nanos, int wanted, BooleanSupplier running) throws InterruptedException {
        long deadline = System.nanoTime() + nanos;
        waitingForSlots = true;
        try {
            for (long left = nanos;
                    left > 0 && running.getAsBoolean() && free() < wanted;
                    left = deadline - System.nanoTime()) wakeup.await(left);
        } finally {
            waitingForSlots = false;
        }
    }
}

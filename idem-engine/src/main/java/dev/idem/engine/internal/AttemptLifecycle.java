package dev.idem.engine.internal;

import dev.idem.engine.EngineConfig;
import dev.idem.engine.internal.AttemptResult.Congestion;
import dev.idem.engine.internal.Attempts.Sent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One claimed delivery from its start to its end, as one chain: a slot of its destination ({@link Destinations}),
 * then {@linkplain Attempts#send send}, free the destination's slot at the answer, {@linkplain Attempts#record decide
 * and record}, and free the node's slot ({@link SlotLedger}). A delivery that cannot start (its lease nearly spent,
 * its node unable to vouch for its claim, the engine stopping) leaves its destination's slot unused and ends there.
 */
final class AttemptLifecycle {
    private static final Logger log = LoggerFactory.getLogger(AttemptLifecycle.class);
    private static final long MIN_SEND_MS = 100;

    private final Attempts attempts;
    private final Destinations<Held> destinations;
    private final SlotLedger ledger;
    private final ClaimGate gate;
    private final Tasks tasks;
    private final Wakeups wakeups;
    private final EngineConfig config;

    private final AtomicInteger onWire = new AtomicInteger();
    /** Deliveries whose start came after {@link #stopStarting()}: given back at shutdown. */
    private final List<Held> notStarted = new CopyOnWriteArrayList<>();

    private volatile boolean stopping;

    AttemptLifecycle(
            Attempts attempts,
            Destinations<Held> destinations,
            SlotLedger ledger,
            ClaimGate gate,
            Tasks tasks,
            Wakeups wakeups,
            EngineConfig config) {
        this.attempts = attempts;
        this.destinations = destinations;
        this.ledger = ledger;
        this.gate = gate;
        this.tasks = tasks;
        this.wakeups = wakeups;
        this.config = config;
    }

    /** Starts the delivery now if its destination has a free slot, else it waits for one. */
    void begin(Held h) {
        if (stopping) notStarted.add(h);
        else if (destinations.startOrWait(h.destination(), h)) execute(h);
    }

    /** Keeps a delivery that will not start for the give-back at shutdown. */
    void keepUnstarted(Held h) {
        notStarted.add(h);
    }

    /** Deliveries started from now on stay unstarted, for {@link #takeUnstarted()}. */
    void stopStarting() {
        stopping = true;
    }

    /** Removes and returns every delivery claimed and not started: waiting for a slot, or kept at shutdown. */
    List<Held> takeUnstarted() {
        List<Held> out = new ArrayList<>(destinations.drainWaiting());
        out.addAll(notStarted);
        notStarted.removeAll(out);
        return out;
    }

    int onWire() {
        return onWire.get();
    }

    private void execute(Held h) {
        if (!tasks.run(() -> attempt(h))) {
            unused(h);
            notStarted.add(h);
        }
    }

    /** On a worker: the chain of one attempt, claim to free. */
    private void attempt(Held h) {
        if (stopping) {
            unused(h);
            notStarted.add(h);
            return;
        }
        Duration timeout = timeoutWithinLease(h);
        if (timeout.toMillis() < MIN_SEND_MS) {
            log.warn(
                    "delivery {} not sent: only {} ms of its lease left on node {}; it goes back to the queue unattempted",
                    h.id(),
                    timeout.toMillis(),
                    config.nodeId());
            unused(h);
            ledger.giveBack(List.of(h));
            return;
        }
        if (!gate.mayStart(h.owner())) {
            // stale liveness: the claim may be in another node's hands. If it is still ours, the next claim releases it
            log.debug(
                    "delivery {} not sent: {} cannot vouch for its claim (liveness not renewed, or declared dead)",
                    h.id(),
                    h.owner());
            unused(h);
            ledger.lost(h);
            return;
        }
        onWire.incrementAndGet();
        long sentNanos = System.nanoTime();
        attempts.send(h.claim(), timeout).whenComplete((sent, e) -> {
            if (e != null) log.error("sending delivery {} failed inside the engine; its lease will expire", h.id(), e);
            ended(h, e == null ? sent : Sent.aborted(), System.nanoTime() - sentNanos);
        });
    }

    /** The exchange ended: its destination's slot frees at once, then the outcome is decided and recorded. */
    private void ended(Held h, Sent sent, long rttNanos) {
        onWire.decrementAndGet();
        answered(h, sent.congestion(), rttNanos);
        switch (sent.ending()) {
            case ANSWERED -> attempts.record(h.claim(), sent.result()).whenComplete((written, e) -> ledger.done(h));
            case NOT_ATTEMPTED -> ledger.giveBack(List.of(h));
            case ABORTED -> ledger.done(h);
        }
    }

    /** Frees a destination slot that was never used on the wire. */
    private void unused(Held h) {
        answered(h, Congestion.NONE, 0);
    }

    /** Frees the destination's slot, starts what its host let start in its place, and wakes a claim if it waits. */
    private void answered(Held h, Congestion signal, long rttNanos) {
        for (Held next : destinations.answered(h.destination(), signal, rttNanos)) execute(next);
        wakeups.answered(h.destination());
    }

    /**
     * The schedule's timeout, capped by the engine's ceiling and by what is left of the lease after a safety
     * margin for recording the outcome: a request must end while this node still holds the delivery.
     */
    private Duration timeoutWithinLease(Held h) {
        Duration t = h.claim().schedule().definition().timeout();
        if (t.compareTo(config.maxRequestTimeout()) > 0) t = config.maxRequestTimeout();
        long leaseMs = config.lease().toMillis();
        long margin = Math.min(5000, leaseMs / 10);
        long leftMs = leaseMs - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - h.claimedAtNanos()) - margin;
        return leftMs < t.toMillis() ? Duration.ofMillis(Math.max(leftMs, 0)) : t;
    }
}

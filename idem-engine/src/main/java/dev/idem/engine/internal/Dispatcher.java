package dev.idem.engine.internal;

import dev.idem.core.store.DeliveryQueue;
import dev.idem.engine.EngineConfig;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Claims due deliveries and starts their attempts, without a thread per attempt. Its parts, each in its own type:
 *
 * <ul>
 *   <li>{@link ClaimLoops}: the loops that claim due rows, and the pass-over loop;
 *   <li>{@link HeldAhead}: what was claimed ahead of its instant, checked again and started at it;
 *   <li>{@link AttemptLifecycle}: one attempt, from a destination slot through send, decide and record to its end;
 *   <li>{@link SlotLedger}: the node's claims not yet finished, and their give-back;
 *   <li>{@link Destinations}: the slots of each destination (an endpoint URL) and host;
 *   <li>{@link Wakeups}: what ends the loops' sleeps, made by the caller before anything that wakes them.
 * </ul>
 *
 * <p>Bounds: a node holds at most {@link EngineConfig#maxInFlight()} claims not yet recorded (on the wire, waiting
 * for a destination slot, or whose outcome the recorder has not written), each destination at most its
 * {@link AdaptiveLimit}, and each host and port at most {@link EngineConfig#maxConnectionsPerHost()} on the wire,
 * shared among its destinations in turn ({@link HostState}). A claim asks the store for at most the free slots of each
 * destination ({@link Destinations#fairness()}), interleaving destinations, so a congested destination's backlog stays
 * in the table (no lease, no memory) and never delays another's due rows. A claimed delivery that cannot start within
 * {@link #MAX_WAIT} (its destination's limit shrank meanwhile) is given back unattempted ({@link DeliveryQueue#unclaim}),
 * so only attempts actually made count against the retry policy and auto-pause.
 *
 * <p>Attempts are built and handed to the HTTP client on {@code workers} (a few threads: building and signing is
 * CPU work, the exchange itself needs no thread); a delivery claimed within the look-ahead starts at its due instant
 * from {@code timer}, never before.
 */
public final class Dispatcher {
    /**
     * Deliveries due this soon are claimed with those due now and held in memory until their instant
     * ({@link HeldAhead}): a claim that takes tens of milliseconds under load then makes nothing late, and a steady
     * trickle costs one claim per many rows.
     */
    static final Duration LOOKAHEAD = dev.idem.core.DueSoon.LOOKAHEAD;
    /** A claimed delivery still waiting for its destination after this long goes back to the queue unattempted. */
    static final Duration MAX_WAIT = ClaimLoops.MAX_WAIT;

    static final long PASS_OVER_SPACING_MS = ClaimLoops.PASS_OVER_SPACING_MS;
    static final int PASS_OVER_COST_SPACING = ClaimLoops.PASS_OVER_COST_SPACING;
    /**
     * Where a new destination starts: the sender threads the engine had before it stopped needing them, so no
     * destination starts slower than it did; slow start doubles it every round trip from there.
     */
    public static final int INITIAL_DESTINATION_LIMIT = 64;

    private final Wakeups wakeups;
    private final Destinations<Held> destinations;
    private final SlotLedger ledger;
    private final AttemptLifecycle lifecycle;
    private final HeldAhead heldAhead;
    private final ClaimLoops loops;

    /** A dispatcher whose gate is always open, claiming as the node id, with wake-ups of its own (tests). */
    public Dispatcher(
            DeliveryQueue queue,
            EngineConfig config,
            Clock clock,
            Executor workers,
            ScheduledExecutorService timer,
            Attempts attempts) {
        this(queue, config, clock, workers, timer, attempts, ClaimGate.open(config.nodeId()), new Wakeups());
    }

    /**
     * @param gate the node's liveness: the owner to claim as, and whether this node may claim or start an attempt now
     * @param wakeups what wakes the claim loops, shared with whoever signals that deliveries may be due
     */
    public Dispatcher(
            DeliveryQueue queue,
            EngineConfig config,
            Clock clock,
            Executor workers,
            ScheduledExecutorService timer,
            Attempts attempts,
            ClaimGate gate,
            Wakeups wakeups) {
        Tasks tasks = new Tasks(workers, timer);
        this.wakeups = wakeups;
        this.destinations =
                new Destinations<>(INITIAL_DESTINATION_LIMIT, config.maxInFlight(), config.maxConnectionsPerHost());
        this.ledger = new SlotLedger(queue, gate, wakeups, config);
        this.lifecycle = new AttemptLifecycle(attempts, destinations, ledger, gate, tasks, wakeups, config);
        this.heldAhead =
                new HeldAhead(queue, clock, tasks, destinations, ledger, lifecycle, config.nodeId(), LOOKAHEAD);
        this.loops = new ClaimLoops(queue, config, clock, gate, destinations, ledger, heldAhead, wakeups, attempts);
    }

    /** Tells the claim loops a delivery may be due now. */
    public void wakeUp() {
        wakeups.all();
    }

    /** Stops claiming; attempts in flight go on. */
    public void stop() {
        loops.stop();
    }

    /** Claimed deliveries not yet started stay unstarted from now on; {@link #giveBackUnstarted()} returns them. */
    public void stopStartingSends() {
        lifecycle.stopStarting();
    }

    /** Claims held on this node and not yet finished (on the wire, waiting for a slot, or being recorded). */
    public int claimsHeld() {
        return ledger.taken();
    }

    /** Attempts on the wire now. */
    public int attemptsInFlight() {
        return lifecycle.onWire();
    }

    /** Destinations currently sent fewer attempts at once because they time out, reset or answer 5xx. */
    public int destinationsThrottled() {
        return destinations.throttled();
    }

    /** Hosts currently given fewer connections at once because connecting to them fails. */
    public int hostsThrottled() {
        return destinations.hostsThrottled();
    }

    /** A destination's current limit of attempts at once (tests). */
    int limitOf(String destination) {
        return destinations.limitOf(destination);
    }

    /** A claim loop, to run on its own thread until {@link #stop()}; the first one made follows the timer. */
    public Runnable claimLoop() {
        return loops.claimLoop();
    }

    /** The pass-over loop, to run on a thread of its own until {@link #stop()} ({@link ClaimLoops#passOverLoop()}). */
    public Runnable passOverLoop() {
        return loops.passOverLoop();
    }

    /** Gives back every claimed delivery not started (shutdown, after {@link #stopStartingSends()} and the claim loops ended). */
    public int giveBackUnstarted() {
        List<Held> back = new ArrayList<>(lifecycle.takeUnstarted());
        back.addAll(heldAhead.drain());
        ledger.giveBack(back);
        return back.size();
    }
}

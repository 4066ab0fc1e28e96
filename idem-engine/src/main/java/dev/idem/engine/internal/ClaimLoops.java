package dev.idem.engine.internal;

import dev.idem.core.DueSoon;
import dev.idem.core.store.DeliveryQueue;
import dev.idem.core.store.DeliveryQueue.Claim;
import dev.idem.core.store.DeliveryQueue.Fairness;
import dev.idem.engine.EngineConfig;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The loops that claim due deliveries, each on a thread of its own until {@link #stop()}.
 *
 * <p>Several claim loops may run at once ({@link #claimLoop()}): when the database is slow to answer, one loop's claim
 * latency would cap throughput at a batch per round trip. Only the first follows the timer; the others claim only while
 * there is a backlog. Each loop reserves node slots ({@link SlotLedger}) before it claims. Between claims the primary
 * loop sleeps until the earliest due row of a destination with free slots enters the look-ahead, a wake-up
 * ({@link Wakeups}): a delivery written due, an answer from a destination whose backlog the last claim left in the
 * table, a freed node slot while it waits for one; or the poll interval. Their claims read bounded windows of due rows;
 * the {@link #passOverLoop()} claims, now and then, the rows that fell due in the middle of a full destination's
 * backlog. What they claim starts at its instant ({@link HeldAhead}), the first of every destination before the second
 * of any.
 */
final class ClaimLoops {
    private static final Logger log = LoggerFactory.getLogger(ClaimLoops.class);
    private static final long GATHER_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    /**
     * A claimed delivery still waiting for its destination after this long goes back to the queue unattempted. Twice
     * what a claim takes beyond a destination's slots should need to drain ({@link PathState#RATE_BUCKET_NANOS}).
     */
    static final Duration MAX_WAIT = Duration.ofSeconds(2);
    /**
     * The least time between two claims that were not full: a steady trickle costs one claim per this interval, not
     * one per row.
     */
    private static final long CLAIM_SPACING_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    /** Between claims of rows that are inside the look-ahead but not due soon: see {@link #sleepNanos}. */
    private static final long TRICKLE_SPACING_NANOS =
            Math.max(DueSoon.LOOKAHEAD.toNanos() / 10, TimeUnit.MILLISECONDS.toNanos(10));
    /** The least time between two pass-over claims' starts, and how many times the last one's duration must pass. */
    static final long PASS_OVER_SPACING_MS = 1_000;

    static final int PASS_OVER_COST_SPACING = 50;

    private final DeliveryQueue queue;
    private final EngineConfig config;
    private final Clock clock;
    private final ClaimGate gate;
    private final Destinations<Held> destinations;
    private final SlotLedger ledger;
    private final HeldAhead heldAhead;
    private final Wakeups wakeups;
    private final Attempts attempts;
    /** Whether claims are traced: else not even their start time is read. */
    private final boolean tracedClaims;
    /** The smallest claim worth a transaction while attempts are in flight. */
    private final int minBusyClaim;

    private volatile boolean running = true;
    /** Whether the last claim came back full, so more rows are probably due now. */
    private volatile boolean backlog;

    ClaimLoops(
            DeliveryQueue queue,
            EngineConfig config,
            Clock clock,
            ClaimGate gate,
            Destinations<Held> destinations,
            SlotLedger ledger,
            HeldAhead heldAhead,
            Wakeups wakeups,
            Attempts attempts) {
        this.queue = queue;
        this.config = config;
        this.clock = clock;
        this.gate = gate;
        this.destinations = destinations;
        this.ledger = ledger;
        this.heldAhead = heldAhead;
        this.wakeups = wakeups;
        this.attempts = attempts;
        this.tracedClaims = attempts.tracesClaims();
        this.minBusyClaim = Math.max(1, Math.min(config.batchSize() / 4, config.maxInFlight() / 4));
    }

    /** Stops claiming; attempts in flight go on. */
    void stop() {
        running = false;
        wakeups.all();
        wakeups.passOver().signal();
    }

    /** A claim loop; the first one made follows the timer. */
    Runnable claimLoop() {
        Wakeup wakeup = wakeups.register();
        boolean primary = wakeups.isPrimary(wakeup);
        return () -> run(wakeup, primary);
    }

    private void run(Wakeup wakeup, boolean primary) {
        long errorBackoffMs = 100;
        long lastClaimNanos = System.nanoTime() - CLAIM_SPACING_NANOS;
        while (running) {
            try {
                if (!primary && !backlog || !gate.mayClaim()) {
                    // a node that cannot renew its liveness claims nothing: it may be declared dead any moment (woken
                    // when it may again)
                    wakeup.await(config.pollInterval().toNanos());
                    continue;
                }
                // answers of a backlogged destination wake the loop one by one: claims that are not full stay spaced,
                // each taking what freed meanwhile, instead of one transaction per answer
                long sinceClaim = System.nanoTime() - lastClaimNanos;
                if (!backlog && sinceClaim < CLAIM_SPACING_NANOS)
                    TimeUnit.NANOSECONDS.sleep(CLAIM_SPACING_NANOS - sinceClaim);
                if (primary) ledger.giveBack(destinations.waitedLongerThan(MAX_WAIT.toNanos()));
                if (ledger.free() == 0) {
                    ledger.awaitSlots(wakeup, config.pollInterval().toNanos(), 1, () -> running);
                    continue;
                }
                if (ledger.free() < minBusyClaim && ledger.taken() > 0)
                    ledger.awaitSlots(wakeup, GATHER_NANOS, minBusyClaim, () -> running);
                ledger.releaseLostClaims();
                int limit = Math.min(config.batchSize(), ledger.free());
                if (limit <= 0 || !ledger.reserve(limit)) continue;
                int claimed = claimReserved(limit, false);
                lastClaimNanos = System.nanoTime();
                errorBackoffMs = 100;
                backlog = claimed == limit;
                if (backlog) {
                    wakeups.others();
                    continue;
                }
                if (primary) wakeup.await(sleepNanos(claimed == 0, destinations.fairness()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException | Error e) {
                if (e instanceof Error)
                    log.error("dispatcher on node {} hit an error; it keeps running", config.nodeId(), e);
                else
                    log.warn(
                            "claiming due deliveries failed on node {}, retrying in {} ms: {}",
                            config.nodeId(),
                            errorBackoffMs,
                            e.toString());
                try {
                    wakeup.await(TimeUnit.MILLISECONDS.toNanos(errorBackoffMs));
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
                errorBackoffMs = Math.min(errorBackoffMs * 2, 5000);
            }
        }
    }

    /**
     * Claims on {@code limit} node slots already reserved (the rest are freed again), with the pass-over claim or the
     * bounded one, and starts what it claimed; returns how many it claimed.
     */
    private int claimReserved(int limit, boolean passOver) {
        Fairness fairness = destinations.fairness();
        String owner = gate.owner();
        // a span's times are the wall clock's, as the SDK stamps its other spans, not the engine's (tests move that)
        Instant startedAt = tracedClaims ? Instant.now() : null;
        List<Claim> claims = ledger.claim(
                limit,
                owner,
                () -> passOver
                        ? queue.claimDuePassingOver(owner, config.lease(), limit, DueSoon.LOOKAHEAD, fairness)
                        : queue.claimDue(owner, config.lease(), limit, DueSoon.LOOKAHEAD, fairness));
        if (startedAt != null && !claims.isEmpty()) attempts.claimed(claims, startedAt);
        accept(claims, owner, fairness);
        return claims.size();
    }

    /**
     * The pass-over loop. The claim loops' bounded claims read the earliest and the latest due rows only, so rows of
     * another destination that fell due in the middle of a full destination's backlog (at the same instant as a
     * hanging destination's burst, say) are claimed here: while some destination is full, a claim that reads past its
     * rows ({@link DeliveryQueue#claimDuePassingOver}) runs as often as its {@link CostSpacing} allows: at most once a
     * {@link #PASS_OVER_SPACING_MS}, and no sooner than {@link #PASS_OVER_COST_SPACING} times the last one's duration
     * after it began (at most 2% of the time). On its own thread because it can take most of a second behind a large
     * backlog, which a claim loop running it spent not claiming
     * (idem-bench/runs/2026-11-27T1323-pass-over-thread-ab.txt).
     */
    Runnable passOverLoop() {
        return this::passOver;
    }

    private void passOver() {
        CostSpacing spacing = new CostSpacing(PASS_OVER_SPACING_MS, PASS_OVER_COST_SPACING);
        while (running) {
            long sleepNanos = config.pollInterval().toNanos();
            try {
                if (gate.mayClaim() && destinations.fairness().anyFull()) {
                    long now = clock.millis();
                    long waitMillis = spacing.waitMillis(now);
                    if (waitMillis > 0) {
                        sleepNanos = Math.min(sleepNanos, TimeUnit.MILLISECONDS.toNanos(waitMillis));
                    } else {
                        int limit = Math.min(config.batchSize(), ledger.free());
                        // a failed claim's lost leases are the claim loops' to release (releaseLostClaims)
                        if (limit > 0 && ledger.reserve(limit)) {
                            try {
                                claimReserved(limit, true);
                            } finally {
                                // a failed one waits its spacing too: the claim loops go on meanwhile
                                spacing.ran(now, clock.millis());
                            }
                        }
                    }
                }
            } catch (RuntimeException | Error e) {
                log.warn(
                        "passing over full destinations' rows failed on node {}; it keeps running: {}",
                        config.nodeId(),
                        e.toString());
            }
            try {
                wakeups.passOver().await(sleepNanos);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Counts the claims against their destinations and starts each at its due instant, destinations in turn. */
    private void accept(List<Claim> claimed, String owner, Fairness fairness) {
        long now = System.nanoTime();
        // the key parses the endpoint as a URI: once per claim, not once per use
        Map<String, ArrayDeque<Claim>> byDestination = new LinkedHashMap<>();
        Map<String, Integer> perDestination = new HashMap<>();
        for (Claim c : claimed) {
            String d = c.schedule().definition().destination();
            byDestination.computeIfAbsent(d, k -> new ArrayDeque<>()).add(c);
            perDestination.merge(d, 1, Integer::sum);
            destinations.claimed(d);
        }
        boolean filled = false;
        for (Map.Entry<String, Integer> e : perDestination.entrySet()) {
            boolean full = e.getValue() >= fairness.freeFor(e.getKey());
            wakeups.backlogged(e.getKey(), full);
            filled |= full;
        }
        // a destination just filled: rows of others due in the middle of its backlog are the pass-over's to find
        if (filled) wakeups.passOver().signal();
        // started in turn (the first of every destination, then the second...), whatever order the store returned them
        // in: the paths of one host share its connections, and those started first would otherwise take them all
        List<Held> inTurn = new ArrayList<>(claimed.size());
        while (!byDestination.isEmpty())
            for (var it = byDestination.entrySet().iterator(); it.hasNext(); ) {
                var e = it.next();
                inTurn.add(new Held(e.getValue().poll(), owner, e.getKey(), now));
                if (e.getValue().isEmpty()) it.remove();
            }
        heldAhead.startAtTheirInstants(inTurn);
    }

    /**
     * Until the earliest row a claim could take (its destination has a free slot) enters the look-ahead, at most the
     * poll interval; a little when one is inside it but was not claimable; a tenth of the look-ahead when the next row
     * is inside it but not due for a while (a steady trickle: one claim per {@link #TRICKLE_SPACING_NANOS} takes what
     * entered the look-ahead meanwhile, each row still claimed most of a look-ahead before its instant).
     */
    private long sleepNanos(boolean claimedNone, Fairness fairness) {
        long poll = config.pollInterval().toNanos();
        Optional<Instant> next = queue.nextDueAt(fairness);
        if (next.isEmpty()) return poll;
        long untilInstant = Duration.between(clock.instant(), next.get()).toNanos();
        long untilDue = untilInstant - DueSoon.LOOKAHEAD.toNanos();
        if (untilDue <= 0) {
            // a row inside the look-ahead that the claim did not take: a retry (claimed only once due: wake at its
            // instant, looking again every trickle spacing meanwhile), or one whose destination or flow key is full
            if (claimedNone && untilInstant > 0)
                return Math.min(poll, Math.max(CLAIM_SPACING_NANOS, Math.min(untilInstant, TRICKLE_SPACING_NANOS)));
            if (claimedNone) return Math.min(poll, TimeUnit.MILLISECONDS.toNanos(20));
            return Math.min(
                    poll, untilInstant > 2 * TRICKLE_SPACING_NANOS ? TRICKLE_SPACING_NANOS : CLAIM_SPACING_NANOS);
        }
        // after a claim that took rows, the next one enters the look-ahead at once in a steady flow: claim what entered
        // every trickle spacing (each row still most of a look-ahead early) rather than a few rows every 10 ms
        return Math.min(poll, claimedNone ? untilDue : Math.max(untilDue, TRICKLE_SPACING_NANOS));
    }
}

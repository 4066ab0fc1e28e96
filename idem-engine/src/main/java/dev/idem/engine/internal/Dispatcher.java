package dev.idem.engine.internal;

import dev.idem.core.Delivery;
import dev.idem.core.Schedule;
import dev.idem.core.store.DeliveryQueue;
import dev.idem.core.store.DeliveryQueue.Claim;
import dev.idem.core.store.DeliveryQueue.Fairness;
import dev.idem.engine.EngineConfig;
import dev.idem.engine.internal.AttemptResult.Congestion;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claims due deliveries and starts their attempts, without a thread per attempt.
 *
 * <p>Bounds: a node holds at most {@link EngineConfig#maxInFlight()} claims not yet recorded (on the wire, waiting
 * for a destination slot, or whose outcome the recorder has not written), each destination (an endpoint URL without
 * its query) at most its {@link AdaptiveLimit}, and each host and port at most {@link EngineConfig#maxConnectionsPerHost()}
 * on the wire, shared among its destinations in turn ({@link HostState}). A claim asks the store for at most the free slots of each destination
 * ({@link Destinations#fairness()}), interleaving destinations, so a congested destination's backlog stays in the
 * table (no lease, no memory) and never delays another's due rows. A claimed delivery that cannot start within
 * {@link #MAX_WAIT} (its destination's limit shrank meanwhile) is given back unattempted ({@link DeliveryQueue#unclaim}),
 * so only attempts actually made count against the retry policy and auto-pause.
 *
 * <p>Several claim loops may run at once ({@link #claimLoop()}, one thread each): when the database is slow to
 * answer, one loop's claim latency would cap throughput at a batch per round trip. Only the first follows the
 * timer; the others claim only while there is a backlog. Each loop reserves node slots before it claims. Between
 * claims the primary loop sleeps until the earliest due row of a destination with free slots enters the look-ahead,
 * a {@link #wakeUp()}, an answer from a destination whose backlog the last claim left in the table, a freed node slot
 * while it waits for one, or the poll interval. Their claims read bounded windows of due rows; a
 * {@link #passOverLoop()} of its own claims, now and then, the rows that fell due in the middle of a full destination's
 * backlog.
 *
 * <p>Attempts are built and handed to the HTTP client on {@code workers} (a few threads: building and signing is
 * CPU work, the exchange itself needs no thread); a delivery claimed within the look-ahead starts at its due instant
 * from {@code timer}, never before.
 */
public final class Dispatcher {
    private static final Logger log = LoggerFactory.getLogger(Dispatcher.class);
    private static final long MIN_SEND_MS = 100;
    private static final long GATHER_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    /**
     * A claimed delivery still waiting for its destination after this long goes back to the queue unattempted. Twice
     * what a claim takes beyond a destination's slots should need to drain ({@link Destinations#RATE_BUCKET_NANOS}).
     */
    static final Duration MAX_WAIT = Duration.ofSeconds(2);
    /**
     * Deliveries due this soon are claimed with those due now and held in memory until their instant, when a timer
     * starts them: a claim that takes tens of milliseconds under load then makes nothing late, and a steady trickle
     * costs one claim per many rows. Rows held ahead count against their destination ({@link Destinations#fairness()})
     * and the node's {@code maxInFlight}, so a destination has at most its limit held. A held row is checked again
     * {@link #CONFIRM_BEFORE} before its instant ({@link DeliveryQueue#confirmHeld}), so a pause, a delete or a change
     * of its schedule that lands while it is held still stops it.
     */
    static final Duration LOOKAHEAD = dev.idem.core.DueSoon.LOOKAHEAD;
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
    /**
     * The least time between two claims that were not full: a steady trickle costs one claim per this interval, not
     * one per row.
     */
    private static final long CLAIM_SPACING_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    /** Between claims of rows that are inside the look-ahead but not due soon: see {@link #sleepNanos}. */
    private static final long TRICKLE_SPACING_NANOS =
            Math.max(LOOKAHEAD.toNanos() / 10, TimeUnit.MILLISECONDS.toNanos(10));
    /**
     * Where a new destination starts: the sender threads the engine had before it stopped needing them, so no
     * destination starts slower than it did; slow start doubles it every round trip from there.
     */
    public static final int INITIAL_DESTINATION_LIMIT = 64;

    /** Starts one attempt of a claimed delivery and reports on it through the listener. */
    public interface AttemptStarter {
        void start(Claim claim, Duration timeout, Listener listener);
    }

    /** What an attempt reports, in this order: {@link #answered} once, then {@link #finished} once; or {@link #notAttempted}. */
    public interface Listener {
        /** The exchange ended (the destination's slot is free again) with what it says about the destination. */
        void answered(Congestion signal);

        /** The outcome was written, or given up on. */
        void finished();

        /** Nothing was attempted (the store was away while building it): the claim goes back to the queue. */
        void notAttempted();
    }

    /** A claimed delivery on this node, claimed as {@code owner} (the node's incarnation then). */
    private record Held(Claim claim, String owner, String destination, long claimedAtNanos) {}

    private final DeliveryQueue queue;
    private final EngineConfig config;
    private final Clock clock;
    private final Executor workers;
    private final ScheduledExecutorService timer;
    private final AttemptStarter starter;
    /** The node's liveness: the owner to claim as, and whether this node may claim or start an attempt now. */
    private final ClaimGate gate;

    private final Destinations<Held> destinations;
    /** Claims not yet finished (recorded, given back or given up on): at most {@code maxInFlight}. */
    private final AtomicInteger slots = new AtomicInteger();

    private final AtomicInteger onWire = new AtomicInteger();
    /** The smallest claim worth a transaction while attempts are in flight. */
    private final int minBusyClaim;

    private final List<Wakeup> wakeups = new CopyOnWriteArrayList<>();
    /** The {@link #passOverLoop()}'s sleep: signalled when a claim fills a destination, and at {@link #stop()}. */
    private final Wakeup passOverWakeup = new Wakeup();
    /** Destinations whose last claim took every free slot: more of their rows are probably due in the table. */
    private final Set<String> backlogged = ConcurrentHashMap.newKeySet();
    /**
     * Deliveries this node claimed and has not yet finished: after a failed claim, every other lease this node
     * holds is one it lost track of, and is released instead of waiting for its lease to expire.
     */
    private final Set<String> held = ConcurrentHashMap.newKeySet();
    /** Deliveries whose start came after {@link #stopStartingSends()}: given back at shutdown. */
    private final List<Held> notStarted = new CopyOnWriteArrayList<>();
    /** Deliveries claimed ahead of their instant, waiting in {@code timer}: given back at shutdown without waiting for it. */
    private final Map<String, Held> ahead = new ConcurrentHashMap<>();
    /** Rows held ahead whose check is due; one check at a time takes all of them in one round trip. */
    private final java.util.Queue<Held> confirmQueue = new java.util.concurrent.ConcurrentLinkedQueue<>();
    /** Whether a check is queued or running on {@code workers}. */
    private final AtomicBoolean confirming = new AtomicBoolean();
    /** Claims hold it shared from their query until their rows are in {@link #held}; recovery holds it alone. */
    private final ReadWriteLock claimLock = new ReentrantReadWriteLock();
    /** Set when a claim failed: its commit may have gone through with the answer lost. */
    private volatile boolean lostClaimPossible;

    private volatile boolean running = true;
    /** Whether the last claim came back full, so more rows are probably due now. */
    private volatile boolean backlog;

    private volatile boolean sendersStopping;
    /** Whether a claim loop is waiting for node slots: only then does a finished attempt wake it. */
    private volatile boolean waitingForSlots;

    /** A dispatcher whose gate is always open, claiming as the node id (tests of the dispatcher alone). */
    public Dispatcher(
            DeliveryQueue queue,
            EngineConfig config,
            Clock clock,
            Executor workers,
            ScheduledExecutorService timer,
            AttemptStarter starter) {
        this(queue, config, clock, workers, timer, starter, ClaimGate.open(config.nodeId()));
    }

    public Dispatcher(
            DeliveryQueue queue,
            EngineConfig config,
            Clock clock,
            Executor workers,
            ScheduledExecutorService timer,
            AttemptStarter starter,
            ClaimGate gate) {
        this.gate = gate;
        this.queue = queue;
        this.config = config;
        this.clock = clock;
        this.workers = workers;
        this.timer = timer;
        this.starter = starter;
        this.destinations =
                new Destinations<>(INITIAL_DESTINATION_LIMIT, config.maxInFlight(), config.maxConnectionsPerHost());
        this.minBusyClaim = Math.max(1, Math.min(config.batchSize() / 4, config.maxInFlight() / 4));
    }

    public void wakeUp() {
        for (Wakeup w : wakeups) w.signal();
    }

    /** Stops claiming; attempts in flight go on. */
    public void stop() {
        running = false;
        wakeUp();
        passOverWakeup.signal();
    }

    /** Claimed deliveries not yet started stay unstarted from now on; {@link #giveBackUnstarted()} returns them. */
    public void stopStartingSends() {
        sendersStopping = true;
    }

    /** Claims held on this node and not yet finished (on the wire, waiting for a slot, or being recorded). */
    public int claimsHeld() {
        return slots.get();
    }

    /** Attempts on the wire now. */
    public int attemptsInFlight() {
        return onWire.get();
    }

    /** Destinations currently sent fewer attempts at once because they time out, refuse or reset. */
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
        Wakeup wakeup = new Wakeup();
        boolean primary = wakeups.isEmpty();
        wakeups.add(wakeup);
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
                if (primary) giveBack(destinations.waitedLongerThan(MAX_WAIT.toNanos()));
                if (freeSlots() == 0) {
                    awaitSlots(wakeup, config.pollInterval().toNanos(), 1);
                    continue;
                }
                if (freeSlots() < minBusyClaim && slots.get() > 0) awaitSlots(wakeup, GATHER_NANOS, minBusyClaim);
                if (lostClaimPossible) releaseLostClaims();
                int limit = Math.min(config.batchSize(), freeSlots());
                if (limit <= 0 || !reserve(limit)) continue;
                int claimed = claimReserved(limit, false);
                lastClaimNanos = System.nanoTime();
                errorBackoffMs = 100;
                backlog = claimed == limit;
                if (backlog) {
                    for (int i = 1; i < wakeups.size(); i++) wakeups.get(i).signal();
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
     * Claims up to {@code limit} node slots already {@linkplain #reserve reserved} (the rest are freed again), with the
     * pass-over claim or the bounded one, and starts what it claimed; returns how many it claimed.
     */
    private int claimReserved(int limit, boolean passOver) {
        Fairness fairness = destinations.fairness();
        List<Claim> claims;
        String owner = gate.owner();
        claimLock.readLock().lock();
        try {
            claims = passOver
                    ? queue.claimDuePassingOver(owner, config.lease(), limit, LOOKAHEAD, fairness)
                    : queue.claimDue(owner, config.lease(), limit, LOOKAHEAD, fairness);
            if (!owner.equals(gate.owner())) {
                // declared dead while claiming: nobody else will return claims made as the dead incarnation
                queue.release(owner);
                claims = List.of();
            }
            for (Claim c : claims) held.add(c.delivery().id());
        } catch (RuntimeException | Error e) {
            lostClaimPossible = true;
            slots.addAndGet(-limit);
            throw e;
        } finally {
            claimLock.readLock().unlock();
        }
        slots.addAndGet(claims.size() - limit);
        accept(claims, owner, fairness);
        return claims.size();
    }

    /** The least time between two pass-over claims' starts, and how many times the last one's duration must pass. */
    static final long PASS_OVER_SPACING_MS = 1_000;

    static final int PASS_OVER_COST_SPACING = 50;

    /**
     * The pass-over loop, to run on a thread of its own until {@link #stop()}. The claim loops' bounded claims read the
     * earliest and the latest due rows only, so rows of another destination that fell due in the middle of a full
     * destination's backlog (at the same instant as a hanging destination's burst, say) are claimed here: while some
     * destination is full, a claim that reads past its rows ({@link DeliveryQueue#claimDuePassingOver}) runs as often
     * as its {@link CostSpacing} allows: at most once a {@link #PASS_OVER_SPACING_MS}, and no sooner than
     * {@link #PASS_OVER_COST_SPACING} times the last one's duration after it began (at most 2% of the time). It reads
     * every due row of the full destinations with its schedule, so rows of another destination in the middle of such a
     * backlog wait up to a second behind a small backlog, about a minute behind 280,000 rows. On its own thread because
     * it can take most of a second behind a large backlog, which a claim loop running it spent not claiming: a healthy
     * destination's p99 lag beside 200,000 hanging rows was a few hundred milliseconds that way, ten with this loop
     * (idem-bench/runs/2026-11-27T1323-pass-over-thread-ab.txt).
     */
    public Runnable passOverLoop() {
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
                        int limit = Math.min(config.batchSize(), freeSlots());
                        // a failed claim's lost leases are the claim loops' to release (releaseLostClaims)
                        if (limit > 0 && reserve(limit)) {
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
                passOverWakeup.await(sleepNanos);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void awaitSlots(Wakeup wakeup, long nanos, int wanted) throws InterruptedException {
        long deadline = System.nanoTime() + nanos;
        waitingForSlots = true;
        try {
            for (long left = nanos; left > 0 && running && freeSlots() < wanted; left = deadline - System.nanoTime())
                wakeup.await(left);
        } finally {
            waitingForSlots = false;
        }
    }

    /** Counts the claims against their destinations and starts each at its due instant. */
    private void accept(List<Claim> claimed, String owner, Fairness fairness) {
        long now = System.nanoTime();
        Map<String, Integer> perDestination = new HashMap<>();
        // the key parses the endpoint as a URI: once per claim, not once per use
        Map<String, java.util.ArrayDeque<Claim>> byDestination = new java.util.LinkedHashMap<>();
        for (Claim c : claimed) {
            String d = c.schedule().definition().destination();
            byDestination.computeIfAbsent(d, k -> new java.util.ArrayDeque<>()).add(c);
            perDestination.merge(d, 1, Integer::sum);
            destinations.claimed(d);
        }
        // started in turn (the first of every destination, then the second...), whatever order the store returned them
        // in: the paths of one host share its connections, and those started first would otherwise take them all
        List<Claim> claims = new ArrayList<>(claimed.size());
        List<String> keys = new ArrayList<>(claimed.size());
        while (!byDestination.isEmpty())
            for (var it = byDestination.entrySet().iterator(); it.hasNext(); ) {
                var e = it.next();
                claims.add(e.getValue().poll());
                keys.add(e.getKey());
                if (e.getValue().isEmpty()) it.remove();
            }
        boolean filled = false;
        for (Map.Entry<String, Integer> e : perDestination.entrySet()) {
            if (e.getValue() >= fairness.freeFor(e.getKey())) {
                backlogged.add(e.getKey());
                filled = true;
            } else {
                backlogged.remove(e.getKey());
            }
        }
        // a destination just filled: rows of others due in the middle of its backlog are the pass-over's to find
        if (filled) passOverWakeup.signal();
        Instant at = clock.instant();
        // rows whose checks fall due within CONFIRM_SPREAD of each other are checked together: one round trip each
        Map<Long, List<Held>> toCheck = new java.util.TreeMap<>();
        for (int i = 0; i < claims.size(); i++) {
            Claim c = claims.get(i);
            Held h = new Held(c, owner, keys.get(i), now);
            long waitNanos = Duration.between(at, dueAt(c.delivery())).toNanos();
            if (waitNanos <= 0) begin(h);
            else {
                ahead.put(c.delivery().id(), h);
                if (waitNanos <= CONFIRM_BEFORE.toNanos()) {
                    startAtInstant(h, waitNanos);
                    continue;
                }
                long checkIn = waitNanos - CONFIRM_BEFORE.toNanos();
                toCheck.computeIfAbsent(checkIn / CONFIRM_SPREAD_NANOS, k -> new ArrayList<>())
                        .add(h);
            }
        }
        toCheck.forEach((bucket, hs) -> {
            try {
                timer.schedule(() -> toConfirm(hs), bucket * CONFIRM_SPREAD_NANOS, TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) {
                for (Held h : hs) if (ahead.remove(h.claim().delivery().id(), h)) notStarted.add(h);
            }
        });
    }

    /**
     * Starts a delivery held in {@link #ahead} at its instant, unless something else (the give-back at shutdown) took
     * it out of {@code ahead} first.
     */
    private void startAtInstant(Held h, long waitNanos) {
        String id = h.claim().delivery().id();
        // nanoseconds, not milliseconds: a wait truncated to the millisecond would start it before its instant
        try {
            timer.schedule(
                    () -> {
                        if (ahead.remove(id, h)) begin(h);
                    },
                    Math.min(waitNanos, LOOKAHEAD.toNanos()),
                    TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            if (ahead.remove(id, h)) notStarted.add(h);
        }
    }

    private void toConfirm(List<Held> hs) {
        confirmQueue.addAll(hs);
        if (!confirming.compareAndSet(false, true)) return;
        try {
            workers.execute(this::confirmQueued);
        } catch (RejectedExecutionException e) {
            // shutting down: what is still in `ahead` is given back by giveBackUnstarted
            confirming.set(false);
        }
    }

    /**
     * Checks every queued row against its schedule ({@link DeliveryQueue#confirmHeld}): those confirmed start at their
     * instant, the others were settled by the store (given back, cancelled, or no longer this node's) and stop
     * counting here. When the check fails the rows are given back rather than sent unchecked.
     */
    private void confirmQueued() {
        try {
            List<Held> batch = new ArrayList<>();
            for (Held h; (h = confirmQueue.poll()) != null; )
                if (ahead.get(h.claim().delivery().id()) == h) batch.add(h);
            Map<String, List<Held>> byOwner = new HashMap<>();
            for (Held h : batch)
                byOwner.computeIfAbsent(h.owner(), o -> new ArrayList<>()).add(h);
            byOwner.forEach(this::confirm);
        } finally {
            confirming.set(false);
            if (!confirmQueue.isEmpty() && confirming.compareAndSet(false, true)) {
                try {
                    workers.execute(this::confirmQueued);
                } catch (RejectedExecutionException e) {
                    confirming.set(false);
                }
            }
        }
    }

    private void confirm(String owner, List<Held> batch) {
        Set<String> ok = new java.util.HashSet<>();
        boolean checked = false;
        try {
            for (Claim c :
                    queue.confirmHeld(owner, batch.stream().map(Held::claim).toList()))
                ok.add(c.delivery().id());
            checked = true;
        } catch (RuntimeException e) {
            log.warn(
                    "node {} could not check {} deliveries held ahead against their schedules; they go back to the queue unattempted: {}",
                    config.nodeId(),
                    batch.size(),
                    e.toString());
        }
        Instant at = clock.instant();
        List<Held> back = new ArrayList<>();
        for (Held h : batch) {
            String id = h.claim().delivery().id();
            if (ok.contains(id)) {
                long waitNanos =
                        Duration.between(at, dueAt(h.claim().delivery())).toNanos();
                if (waitNanos <= 0) {
                    if (ahead.remove(id, h)) begin(h);
                } else startAtInstant(h, waitNanos);
            } else if (ahead.remove(id, h)) {
                destinations.forget(h.destination());
                if (checked) {
                    // settled by the store: given back, cancelled, or no longer held as this claim
                    held.remove(id);
                    slots.decrementAndGet();
                } else back.add(h);
            }
        }
        giveBack(back);
        if (waitingForSlots) wakeUp();
    }

    /** Starts the delivery now if its destination has a free slot, else it waits for one. */
    private void begin(Held h) {
        if (sendersStopping) {
            notStarted.add(h);
            return;
        }
        if (destinations.startOrWait(h.destination(), h)) execute(h);
    }

    private void execute(Held h) {
        try {
            workers.execute(() -> attempt(h));
        } catch (RejectedExecutionException e) {
            destinations.answered(h.destination(), Congestion.NONE, 0);
            notStarted.add(h);
        }
    }

    private void attempt(Held h) {
        if (sendersStopping) {
            destinations.answered(h.destination(), Congestion.NONE, 0);
            notStarted.add(h);
            return;
        }
        Duration timeout = timeoutWithinLease(h.claim().schedule(), h.claimedAtNanos());
        if (timeout.toMillis() < MIN_SEND_MS) {
            log.warn(
                    "delivery {} not sent: only {} ms of its lease left on node {}; it goes back to the queue unattempted",
                    h.claim().delivery().id(),
                    timeout.toMillis(),
                    config.nodeId());
            destinations.answered(h.destination(), Congestion.NONE, 0);
            giveBack(List.of(h));
            return;
        }
        if (!gate.mayStart(h.owner())) {
            // stale liveness: the claim may be in another node's hands. If it is still ours, the next claim releases it
            log.debug(
                    "delivery {} not sent: {} cannot vouch for its claim (liveness not renewed, or declared dead)",
                    h.claim().delivery().id(),
                    h.owner());
            destinations.answered(h.destination(), Congestion.NONE, 0);
            held.remove(h.claim().delivery().id());
            slots.decrementAndGet();
            // only once it is out of `held` may the release before the next claim return it
            lostClaimPossible = true;
            return;
        }
        onWire.incrementAndGet();
        starter.start(h.claim(), timeout, new AttemptListener(h));
    }

    /** Reports of one attempt; each step runs once whatever calls it. */
    private final class AttemptListener implements Listener {
        private final Held h;
        private final AtomicBoolean answered = new AtomicBoolean();
        private final AtomicBoolean finished = new AtomicBoolean();
        /** When the attempt was handed to the sender: its answer's round trip is measured from here. */
        private final long startedNanos = System.nanoTime();

        AttemptListener(Held h) {
            this.h = h;
        }

        @Override
        public void answered(Congestion signal) {
            if (!answered.compareAndSet(false, true)) return;
            onWire.decrementAndGet();
            for (Held next : destinations.answered(h.destination(), signal, System.nanoTime() - startedNanos))
                execute(next);
            if (!wakeups.isEmpty() && backlogged.contains(h.destination()))
                wakeups.get(0).signal();
        }

        @Override
        public void finished() {
            if (!finished.compareAndSet(false, true)) return;
            held.remove(h.claim().delivery().id());
            slots.decrementAndGet();
            if (waitingForSlots) wakeUp();
        }

        @Override
        public void notAttempted() {
            answered(Congestion.NONE);
            if (finished.compareAndSet(false, true)) giveBack(List.of(h));
        }
    }

    /** Returns claims that were never attempted to the queue, their attempt not counted. */
    private void giveBack(List<Held> unattempted) {
        if (unattempted.isEmpty()) return;
        try {
            Map<String, List<Claim>> byOwner = new HashMap<>();
            for (Held h : unattempted)
                byOwner.computeIfAbsent(h.owner(), o -> new ArrayList<>()).add(h.claim());
            byOwner.forEach(queue::unclaim);
        } catch (RuntimeException e) {
            log.warn(
                    "node {} could not give back {} unattempted deliveries; they return when their lease expires: {}",
                    config.nodeId(),
                    unattempted.size(),
                    e.toString());
        }
        for (Held h : unattempted) {
            held.remove(h.claim().delivery().id());
            slots.decrementAndGet();
        }
        if (waitingForSlots) wakeUp();
    }

    /** Gives back every claimed delivery not started (shutdown, after {@link #stopStartingSends()} and the claim loops ended). */
    public int giveBackUnstarted() {
        List<Held> back = new ArrayList<>(destinations.drainWaiting());
        back.addAll(notStarted);
        notStarted.clear();
        for (Map.Entry<String, Held> e : List.copyOf(ahead.entrySet())) {
            Held h = e.getValue();
            if (ahead.remove(e.getKey(), h)) {
                destinations.forget(h.destination());
                back.add(h);
            }
        }
        giveBack(back);
        return back.size();
    }

    /**
     * Returns to the queue what this node holds but is not sending: rows of a claim whose commit went through
     * while its answer was lost. Without this they would wait for their lease to expire. Throws (and stays due)
     * while the store is still away.
     */
    private void releaseLostClaims() {
        claimLock.writeLock().lock();
        try {
            // cleared before `held` is read: an attempt that gives up a
            // claim meanwhile sets it again for the next round
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
                        config.nodeId(),
                        released);
        } finally {
            claimLock.writeLock().unlock();
        }
    }

    /** Takes {@code n} node slots for a claim, all or none (another loop may be claiming too). */
    private boolean reserve(int n) {
        while (true) {
            int now = slots.get();
            if (now + n > config.maxInFlight()) return false;
            if (slots.compareAndSet(now, now + n)) return true;
        }
    }

    private int freeSlots() {
        return Math.max(0, config.maxInFlight() - slots.get());
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
        long untilDue = untilInstant - LOOKAHEAD.toNanos();
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

    /**
     * The schedule's timeout, capped by the engine's ceiling and by what is left of the lease after a safety
     * margin for recording the outcome: a request must end while this node still holds the delivery.
     */
    private Duration timeoutWithinLease(Schedule schedule, long claimedAtNanos) {
        Duration t = schedule.definition().timeout();
        if (t.compareTo(config.maxRequestTimeout()) > 0) t = config.maxRequestTimeout();
        long leaseMs = config.lease().toMillis();
        long margin = Math.min(5000, leaseMs / 10);
        long leftMs = leaseMs - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - claimedAtNanos) - margin;
        return leftMs < t.toMillis() ? Duration.ofMillis(Math.max(leftMs, 0)) : t;
    }

    static Instant dueAt(Delivery d) {
        return d.nextAttemptAt() != null ? d.nextAttemptAt() : d.scheduledFor();
    }
}

package dev.idem.engine.internal;

import dev.idem.core.store.NodeRegistry;
import dev.idem.core.store.NodeRegistry.Join;
import dev.idem.core.store.NodeRegistry.Joined;
import dev.idem.core.store.NodeRegistry.Node;
import dev.idem.core.store.NodeRegistry.NodeProcess;
import dev.idem.core.store.NodeRegistry.Occupied;
import dev.idem.engine.NodeIdInUseException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's liveness: it joins the node registry as a new incarnation, renews its record every
 * {@code interval}, and declares dead any other node whose record has gone unrenewed for longer than {@code window},
 * returning that node's claims to the queue at once. It is also the dispatcher's {@link ClaimGate}.
 *
 * <p>Rules, and why:
 * <ul>
 *   <li>A node starts attempts only while its last successful renewal was <em>sent</em> less than half the window ago
 *       (by this process's monotonic clock). Another node declares it dead only after a whole window of the store's
 *       clock without a renewal, so by then it has started nothing for half a window: a GC pause or a scheduling
 *       stall of up to that long between the check and the request still cannot overlap a takeover.</li>
 *   <li>A node declares another dead only when it has itself been renewing without a lapse for longer than the window.
 *       When the database is away for every node at once, all records age together; without this rule the first node
 *       back would take over every other live node's claims and they would all be sent twice.</li>
 *   <li>A node that finds its record declared dead starts none of the claims it held (they are in other hands), and
 *       rejoins as a new incarnation; outcomes it records late for them are stale and dropped by the store.</li>
 *   <li>At start, a live record under the same node id is a live duplicate unless it is shown dead: by the store's
 *       clock (silent for more than the window), by its process having ended on this machine, or by staying
 *       unrenewed while this node watches it for a whole window. A renewal seen while watching means a live node
 *       uses the id: start is refused ({@link NodeIdInUseException}). At start the node also takes over, at once, the
 *       claims of any node whose process it can see has ended on this machine (a restart after a crash, the usual case
 *       on SQLite); running nodes do not look up processes, they rely on the window alone.</li>
 * </ul>
 */
public final class Liveness implements ClaimGate {
    private static final Logger log = LoggerFactory.getLogger(Liveness.class);
    /** How often a record under our node id is read again while start-up watches it. */
    private static final long WATCH_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(250);
    /** The next try after a failed renewal: short, so a database that comes back is noticed quickly. */
    private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private final NodeRegistry registry;
    private final String nodeId;
    private final Duration window;
    private final long intervalNanos;
    private final long windowNanos;
    private final long startDeadlineNanos;
    private final LongSupplier nanoTime;
    private final NodeProcess process;
    private final EngineMetrics metrics;
    private final Runnable onClaimsReturned;
    private final Runnable onMayClaimAgain;
    private final DeadNodeScan deadNodes;
    private final Wakeup wakeup = new Wakeup();

    /** The current incarnation and when its last successful renewal was sent; replaced whole, read without locks. */
    private record State(Node node, long renewedNanos, boolean lost) {}

    private volatile State state;
    /** When the current unbroken run of timely renewals began. */
    private volatile long steadySinceNanos;

    private volatile boolean running;
    private Thread thread;
    private boolean renewalFailing;
    private boolean stalledLogged;

    /**
     * @param onClaimsReturned run after this node returned a dead node's claims to the queue (wake the dispatchers)
     * @param onMayClaimAgain run when this node may claim again after it could not (wake the dispatcher)
     */
    public Liveness(
            NodeRegistry registry,
            String nodeId,
            Duration interval,
            Duration window,
            LongSupplier nanoTime,
            NodeProcess process,
            EngineMetrics metrics,
            Runnable onClaimsReturned,
            Runnable onMayClaimAgain) {
        this.registry = registry;
        this.nodeId = nodeId;
        this.window = window;
        this.intervalNanos = interval.toNanos();
        this.windowNanos = window.toNanos();
        this.startDeadlineNanos = windowNanos / 2;
        this.nanoTime = nanoTime;
        this.process = process;
        this.metrics = metrics;
        this.onClaimsReturned = onClaimsReturned;
        this.onMayClaimAgain = onMayClaimAgain;
        this.deadNodes = new DeadNodeScan(registry, nodeId, window, interval, metrics, onClaimsReturned);
    }

    /**
     * Joins as a new incarnation of the node id; blocks while it watches a record that may belong to a dead node
     * (at most one window).
     *
     * @throws NodeIdInUseException when a live node uses the node id
     */
    public void join() throws InterruptedException {
        Node watched = null;
        long watchedSince = 0;
        while (true) {
            long sent = nanoTime.getAsLong();
            Node seen = watched;
            long since = watchedSince;
            Join j = registry.join(
                    nodeId,
                    process,
                    (holder, now) -> deadNodes.holderIsDead(holder, now)
                            || seen != null
                                    && sameRenewal(holder, seen)
                                    && nanoTime.getAsLong() - since >= windowNanos);
            if (j instanceof Joined joined) {
                joined(joined, sent);
                return;
            }
            Occupied o = (Occupied) j;
            Node holder = o.holder();
            if (ThisProcess.isRunningHere(holder.process()) || seen != null && !sameRenewal(holder, seen))
                throw inUse(holder, o.now());
            if (seen == null) {
                watched = holder;
                watchedSince = nanoTime.getAsLong();
                log.info(
                        "node id {} was last renewed {} ago by pid {} on {}: watching it for up to {} to see whether that node is alive",
                        nodeId,
                        seconds(holder.silentFor(o.now())),
                        holder.process().pid(),
                        holder.process().host(),
                        seconds(window.minus(holder.silentFor(o.now()))));
            }
            TimeUnit.NANOSECONDS.sleep(WATCH_POLL_NANOS);
        }
    }

    private void joined(Joined j, long sentNanos) {
        state = new State(j.node(), sentNanos, false);
        steadySinceNanos = sentNanos;
        renewalFailing = false;
        stalledLogged = false;
        Optional<Node> previous = j.previous();
        if (previous.isPresent() && previous.get().status() == NodeRegistry.Status.LIVE) {
            Node p = previous.get();
            metrics.reclaimed(j.claimsTakenOver());
            String why = ThisProcess.hasEnded(p.process())
                    ? "its process ended on this machine"
                    : "silent for " + seconds(p.silentFor(j.node().renewedAt()));
            log.warn(
                    "node {} took over {} claims of its previous incarnation {} (pid {} on {}: {}); they go out again now",
                    nodeId,
                    j.claimsTakenOver(),
                    p.epoch(),
                    p.process().pid(),
                    p.process().host(),
                    why);
            if (j.claimsTakenOver() > 0) onClaimsReturned.run();
        } else if (j.claimsTakenOver() > 0) {
            metrics.reclaimed(j.claimsTakenOver());
            log.warn(
                    "node {} returned {} claims its previous incarnation still held to the queue",
                    nodeId,
                    j.claimsTakenOver());
            onClaimsReturned.run();
        }
        log.info(
                "node {} is live as incarnation {} (renewing every {}, takeover window {})",
                nodeId,
                j.node().epoch(),
                seconds(Duration.ofNanos(intervalNanos)),
                seconds(window));
    }

    /** Starts renewing and scanning on a thread of its own. Call after {@link #join()}. */
    public synchronized void start() {
        if (state == null) throw new IllegalStateException("join first");
        running = true;
        thread = new NamedThreads("idem-liveness-" + nodeId).newThread(this::run);
        thread.start();
    }

    /** Stops renewing; then, unless this incarnation was declared dead, marks it stopped (after the caller released its claims). */
    public void stop() {
        Thread t;
        synchronized (this) {
            running = false;
            t = thread;
        }
        wakeup.signal();
        if (t != null) {
            t.interrupt();
            try {
                t.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        State s = state;
        if (s == null || s.lost) return;
        try {
            registry.leave(nodeId, s.node.epoch());
        } catch (RuntimeException e) {
            log.warn(
                    "node {} could not mark itself stopped; a restart under the same id waits up to {} to see that it is gone: {}",
                    nodeId,
                    seconds(window),
                    e.toString());
        }
    }

    @Override
    public String owner() {
        State s = state;
        if (s == null) throw new IllegalStateException("node " + nodeId + " has not joined");
        return s.node.owner();
    }

    @Override
    public boolean mayClaim() {
        return fresh(state, nanoTime.getAsLong());
    }

    @Override
    public boolean mayStart(String claimedAs) {
        State s = state;
        return fresh(s, nanoTime.getAsLong()) && s.node.owner().equals(claimedAs);
    }

    private boolean fresh(State s, long now) {
        return s != null && !s.lost && now - s.renewedNanos < startDeadlineNanos;
    }

    private void run() {
        long nextRenew = nanoTime.getAsLong() + intervalNanos;
        // the first scan at once: the start-up sweep of nodes whose process ended on this machine
        long nextScan = nanoTime.getAsLong();
        while (running) {
            try {
                long now = nanoTime.getAsLong();
                if (now - nextRenew >= 0) nextRenew = now + renew();
                now = nanoTime.getAsLong();
                noteStall(now);
                if (now - nextScan >= 0) nextScan = now + scan();
                long sleep = Math.min(nextRenew, nextScan) - nanoTime.getAsLong();
                if (sleep > 0) wakeup.await(sleep);
            } catch (InterruptedException e) {
                if (!running) return;
            } catch (RuntimeException | Error e) {
                log.error("node {}: the liveness loop hit an error; it keeps running", nodeId, e);
                nextRenew = nanoTime.getAsLong() + RETRY_NANOS;
            }
        }
    }

    /** Renews (or rejoins after being declared dead); returns when to renew next. */
    private long renew() {
        State s = state;
        long sent = nanoTime.getAsLong();
        try {
            if (s.lost) return rejoin(s, sent);
            if (registry.renew(nodeId, s.node.epoch())) {
                State renewed = new State(s.node, sent, false);
                state = renewed;
                long done = nanoTime.getAsLong();
                // a round trip (or a pause around it) that outlasted half the window vouches for nothing: again at once
                if (!fresh(renewed, done)) return 0;
                if (!fresh(s, done)) {
                    // it could not start attempts for a while; its standing to declare others dead starts over too
                    steadySinceNanos = sent;
                    log.info(
                            "node {} renewed its liveness after {} without; it starts attempts again",
                            nodeId,
                            seconds(Duration.ofNanos(sent - s.renewedNanos)));
                    onMayClaimAgain.run();
                } else if (renewalFailing) {
                    log.info("node {} renewed its liveness again", nodeId);
                }
                renewalFailing = false;
                stalledLogged = false;
                return intervalNanos;
            }
            state = new State(s.node, s.renewedNanos, true);
            Optional<Node> now = registry.find(nodeId);
            String by = now.filter(n -> n.epoch() == s.node.epoch() && n.takenOverBy() != null)
                    .map(n -> " by node " + n.takenOverBy() + " after " + seconds(n.silentFor(n.endedAt()))
                            + " without a renewal")
                    .orElse("");
            log.warn(
                    "node {} (incarnation {}) was declared dead{}: its claims went to other nodes and it starts none of them; "
                            + "outcomes it records for them are dropped as stale. It rejoins as a new incarnation",
                    nodeId,
                    s.node.epoch(),
                    by);
            return rejoin(state, nanoTime.getAsLong());
        } catch (RuntimeException e) {
            if (!renewalFailing) log.warn("node {} cannot renew its liveness, retrying: {}", nodeId, e.toString());
            renewalFailing = true;
            return RETRY_NANOS;
        }
    }

    /** After being declared dead: a new incarnation, unless another live node now uses the id. */
    private long rejoin(State lost, long sent) {
        Join j = registry.join(nodeId, process, deadNodes::holderIsDead);
        if (j instanceof Joined joined) {
            joined(joined, sent);
            onMayClaimAgain.run();
            return intervalNanos;
        }
        Node holder = ((Occupied) j).holder();
        if (!renewalFailing)
            log.error(
                    "node {} cannot rejoin: {}. It starts no attempts while that node is live",
                    nodeId,
                    inUse(holder, ((Occupied) j).now()).getMessage());
        renewalFailing = true;
        return intervalNanos;
    }

    private void noteStall(long now) {
        State s = state;
        if (s.lost || fresh(s, now) || stalledLogged) return;
        stalledLogged = true;
        log.warn(
                "node {} has not renewed its liveness for {}: it starts no attempts until it can (another node may take over its claims "
                        + "after {})",
                nodeId,
                seconds(Duration.ofNanos(now - s.renewedNanos)),
                seconds(window));
    }

    /** Declares dead the nodes silent past the window (and at start those whose process ended here); returns when to scan next. */
    private long scan() {
        State s = state;
        long now = nanoTime.getAsLong();
        if (!fresh(s, now)) return RETRY_NANOS;
        return deadNodes.scan(s.node.epoch(), now, steadySinceNanos);
    }

    private static boolean sameRenewal(Node a, Node b) {
        return a.epoch() == b.epoch() && a.renewedAt().equals(b.renewedAt());
    }

    private NodeIdInUseException inUse(Node holder, Instant now) {
        return new NodeIdInUseException(
                nodeId,
                "node id '" + nodeId + "' is already used by a live node (pid "
                        + holder.process().pid() + " on " + holder.process().host() + ", last renewed "
                        + seconds(holder.silentFor(now)) + " ago): each node needs its own node id");
    }

    static String seconds(Duration d) {
        return String.format(java.util.Locale.ROOT, "%.1f s", Math.max(0, d.toMillis()) / 1000.0);
    }
}

package dev.idem.engine;

import dev.idem.core.IdGenerator;
import dev.idem.core.outcome.OutcomeDecider;
import dev.idem.core.store.Store;
import dev.idem.engine.internal.AttemptTracing;
import dev.idem.engine.internal.DeliveryAttempt;
import dev.idem.engine.internal.Dispatcher;
import dev.idem.engine.internal.EngineMetrics;
import dev.idem.engine.internal.HttpSender;
import dev.idem.engine.internal.Liveness;
import dev.idem.engine.internal.LockedRandom;
import dev.idem.engine.internal.Maintenance;
import dev.idem.engine.internal.Materialiser;
import dev.idem.engine.internal.NamedThreads;
import dev.idem.engine.internal.Recorder;
import dev.idem.engine.internal.RequestBuilder;
import dev.idem.engine.internal.SecretCache;
import dev.idem.engine.internal.ThisProcess;
import dev.idem.engine.internal.Wakeups;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The delivery runtime of one node: the materialiser writes each active schedule's next occurrences as
 * deliveries, the dispatcher claims due ones under a lease and sends them signed over HTTP, outcomes are
 * recorded in batches, the reaper returns expired leases of dead nodes, and the pruner keeps tables bounded.
 * Any number of engines may share one PostgreSQL store; each needs its own {@link EngineConfig#nodeId()}.
 *
 * <p>Lifecycle: construct, {@link #start()}, then {@link #close()} (graceful: stops claiming, lets in-flight
 * requests finish within {@link EngineConfig#shutdownGrace()}, releases the leases of the rest). Call
 * {@link #wakeUp()} after writing a delivery that is due now, so it leaves within milliseconds.
 */
public final class Engine implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Engine.class);
    private static final int WORKERS = Math.max(2, Runtime.getRuntime().availableProcessors());

    private final Store store;
    private final EngineConfig config;
    private final ExecutorService workers;
    private final ScheduledExecutorService timer;
    private final HttpSender sender;
    private final ScheduledExecutorService maintenanceThread;
    /** The pruner's own: a run lasts until history is back within retention, and must not hold up materialising. */
    private final ScheduledExecutorService prunerThread;

    private final Recorder recorder;
    private final Dispatcher dispatcher;
    private final Materialiser materialiser;
    private final Maintenance maintenance;
    private final Liveness liveness;
    private final dev.idem.core.OccurrenceTracing occurrences;
    /** The dispatcher's wake-ups, made first: the liveness, materialiser, reaper and store signals call them. */
    private final Wakeups wakeups = new Wakeups();

    private final java.util.List<Thread> dispatcherThreads = new java.util.ArrayList<>();
    private final java.util.List<Thread> recorderThreads = new java.util.ArrayList<>();
    private Store.Subscription dueSignals;
    private boolean started;
    private boolean closed;

    /**
     * @param clock decides attempt times, backoff and retention ages (claims use the store's own clock)
     * @param random draws backoff jitter and id randomness; need not be thread-safe ({@link java.security.SecureRandom} in production)
     * @param meters where the engine's metrics are registered
     */
    public Engine(Store store, EngineConfig config, Clock clock, RandomGenerator random, MeterRegistry meters) {
        this(store, config, clock, random, meters, null);
    }

    /**
     * As {@link #Engine(Store, EngineConfig, Clock, RandomGenerator, MeterRegistry)}, tracing each attempt through
     * {@code openTelemetry} (docs/tracing.md); null means off: no span, the stored trace context sent as is.
     */
    public Engine(
            Store store,
            EngineConfig config,
            Clock clock,
            RandomGenerator random,
            MeterRegistry meters,
            io.opentelemetry.api.OpenTelemetry openTelemetry) {
        this.store = Objects.requireNonNull(store, "store");
        this.config = Objects.requireNonNull(config, "config");
        Objects.requireNonNull(clock, "clock");
        RandomGenerator rnd = new LockedRandom(Objects.requireNonNull(random, "random"));
        EngineMetrics metrics = new EngineMetrics(Objects.requireNonNull(meters, "meters"));
        IdGenerator ids = new IdGenerator(clock, rnd);
        String node = config.nodeId();

        AttemptTracing tracing = AttemptTracing.of(openTelemetry, store, node);
        this.occurrences = tracing.occurrences();
        this.sender = new HttpSender(
                EndpointGuard.of(config.allowPrivateEndpoints()), clock, config.maxInFlight(), tracing.on());
        // building and signing requests is CPU work: one thread per core; the exchanges themselves need none
        this.workers = Executors.newFixedThreadPool(WORKERS, new NamedThreads("idem-send-" + node));
        this.timer = Executors.newSingleThreadScheduledExecutor(new NamedThreads("idem-timer-" + node));
        this.liveness = new Liveness(
                store.nodes(),
                node,
                config.livenessInterval(),
                config.takeoverWindow(),
                System::nanoTime,
                ThisProcess.describe(),
                metrics,
                () -> {
                    wakeups.all();
                    store.queue().notifyDue();
                },
                wakeups::all);
        metrics.liveness(liveness::mayClaim);
        this.recorder = new Recorder(store.queue(), liveness::owner, metrics, tracing::keepFirstAttempts);
        DeliveryAttempt attempt = new DeliveryAttempt(
                new SecretCache(store),
                new RequestBuilder(),
                sender,
                new OutcomeDecider(ids, rnd, clock),
                recorder,
                metrics,
                clock,
                tracing);
        this.dispatcher = new Dispatcher(store.queue(), config, clock, workers, timer, attempt, liveness, wakeups);
        metrics.load(dispatcher::attemptsInFlight, dispatcher::destinationsThrottled);
        this.materialiser = new Materialiser(
                store,
                ids,
                clock,
                config.materialiserHorizon(),
                wakeups::all,
                Materialiser.PAGE,
                tracing.occurrences());
        this.maintenance = new Maintenance(store, clock, config.retention(), metrics, wakeups::all);
        this.maintenanceThread =
                Executors.newSingleThreadScheduledExecutor(new NamedThreads("idem-maintenance-" + node));
        this.prunerThread = Executors.newSingleThreadScheduledExecutor(new NamedThreads("idem-pruner-" + node));
        // SKIP LOCKED lets claims overlap on PostgreSQL; SQLite has one writer, so a second loop would only queue
        int claimLoops = store.claimsConcurrently() ? 2 : 1;
        NamedThreads dispatcherThreadFactory = new NamedThreads("idem-dispatcher-" + node);
        for (int i = 0; i < claimLoops; i++)
            dispatcherThreads.add(dispatcherThreadFactory.newThread(dispatcher.claimLoop()));
        // rows of other destinations due in the middle of a full destination's backlog: off the claim loops
        dispatcherThreads.add(dispatcherThreadFactory.newThread(dispatcher.passOverLoop()));
        NamedThreads recorderThreadFactory = new NamedThreads("idem-recorder-" + node);
        recorderThreads.add(recorderThreadFactory.newThread(recorder));
        // a second writer while a full batch waits (a burst's outcomes): transactions overlap only where claims do
        if (store.claimsConcurrently()) recorderThreads.add(recorderThreadFactory.newThread(recorder.helper()));
    }

    /**
     * Joins the store's live nodes, then starts the threads. Call once. Joining may wait up to the takeover window when
     * the store shows a recent record under this node id (a node killed a moment ago, or a live one: see the README).
     *
     * @throws NodeIdInUseException when a live node uses this node id; nothing was started
     */
    public synchronized void start() {
        if (started) throw new IllegalStateException("engine " + config.nodeId() + " was already started");
        try {
            liveness.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(
                    "interrupted while node " + config.nodeId() + " joined the store's live nodes", e);
        }
        started = true;
        liveness.start();
        recorderThreads.forEach(Thread::start);
        // LISTEN/NOTIFY on PostgreSQL: a delivery written due by any node's API wakes this dispatcher at once
        dueSignals = store.onDeliveriesDue(wakeups::all);
        dispatcherThreads.forEach(Thread::start);
        long poll = config.pollInterval().toMillis();
        maintenanceThread.scheduleWithFixedDelay(
                guarded("materialising", materialiser::runOnce), 0, poll, TimeUnit.MILLISECONDS);
        maintenanceThread.scheduleWithFixedDelay(
                guarded("reaping expired leases", maintenance::reap),
                config.reaperInterval().toMillis(),
                config.reaperInterval().toMillis(),
                TimeUnit.MILLISECONDS);
        prunerThread.scheduleWithFixedDelay(
                guarded("pruning", maintenance::prune), 30_000, 60_000, TimeUnit.MILLISECONDS);
        log.info(
                "engine {} started: at most {} deliveries in flight, batches of {}, lease {}, store {}",
                config.nodeId(),
                config.maxInFlight(),
                config.batchSize(),
                config.lease(),
                store.dialect());
    }

    /**
     * What gives an occurrence written outside the materialiser (with its schedule, by the API) the same creation
     * context as one the materialiser writes: its {@code create} span when tracing is on, else nothing.
     */
    public dev.idem.core.OccurrenceTracing occurrences() {
        return occurrences;
    }

    /** Tells the dispatcher a delivery may be due now; cheap, callable from any thread, before or after start. */
    public void wakeUp() {
        wakeups.all();
    }

    public EngineConfig config() {
        return config;
    }

    /**
     * Graceful stop: claims nothing more, lets requests in flight finish within the shutdown grace, records
     * their outcomes, then releases every lease this node still holds so other nodes take them at once.
     */
    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        long graceNanos = config.shutdownGrace().toNanos();
        if (dueSignals != null) dueSignals.close();
        dispatcher.stop();
        maintenanceThread.shutdown();
        prunerThread.shutdownNow(); // a run stops at its next pause between batches
        for (Thread t : dispatcherThreads) join(t, 5_000);
        dispatcher.stopStartingSends();
        // deliveries held until their due instant (up to the claim
        // look-ahead) are given back by giveBackUnstarted below
        timer.shutdownNow();
        try {
            timer.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        int givenBack = dispatcher.giveBackUnstarted();
        if (givenBack > 0)
            log.info("engine {} gave back {} claimed deliveries it had not started", config.nodeId(), givenBack);
        long deadline = System.nanoTime() + graceNanos;
        while (dispatcher.claimsHeld() > 0 && System.nanoTime() - deadline < 0) sleepQuietly(10);
        if (dispatcher.claimsHeld() > 0) {
            log.warn(
                    "engine {}: {} attempts still in flight after the {} shutdown grace are abandoned; their leases are released",
                    config.nodeId(),
                    dispatcher.attemptsInFlight(),
                    config.shutdownGrace());
            sender.abortInFlight();
        }
        recorder.stop(TimeUnit.SECONDS.toNanos(5));
        try {
            if (!maintenanceThread.awaitTermination(5, TimeUnit.SECONDS)) maintenanceThread.shutdownNow();
            prunerThread.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (Thread t : recorderThreads) join(t, 10_000);
        workers.shutdown();
        if (started) {
            try {
                int released = store.queue().release(liveness.owner());
                if (released > 0) log.info("engine {} released {} leases at shutdown", config.nodeId(), released);
            } catch (RuntimeException e) {
                log.warn(
                        "engine {} could not release its leases at shutdown; they return when they expire: {}",
                        config.nodeId(),
                        e.toString());
            }
        }
        if (started) liveness.stop();
        sender.close();
        if (started) log.info("engine {} stopped", config.nodeId());
    }

    /** Runs the materialiser once now (tests, and callers that just created far-future schedules). */
    int materialiseNow() {
        return materialiser.runOnce();
    }

    int reapNow() {
        return maintenance.reap();
    }

    int pruneNow() {
        return maintenance.prune();
    }

    private Runnable guarded(String what, IntSupplier task) {
        return () -> {
            try {
                task.getAsInt();
            } catch (RuntimeException e) {
                log.warn("engine {}: {} failed, retried on its next run: {}", config.nodeId(), what, e.toString());
            } catch (Error e) {
                // a periodic task that throws is never run again: an Error must not stop materialising for good
                log.error("engine {}: {} failed, retried on its next run", config.nodeId(), what, e);
            }
        };
    }

    /** Attempts of this node on the wire now. */
    public int attemptsInFlight() {
        return dispatcher.attemptsInFlight();
    }

    /** Destinations (endpoint URLs) this node now sends fewer attempts at once: they time out, reset or answer 5xx. */
    public int destinationsThrottled() {
        return dispatcher.destinationsThrottled();
    }

    /** Hosts this node currently gives fewer connections at once because connecting to them fails (refused, unreachable). */
    public int hostsThrottled() {
        return dispatcher.hostsThrottled();
    }

    private static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void join(Thread t, long ms) {
        if (!t.isAlive()) return;
        try {
            t.join(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

package dev.idem.engine;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.idem.core.Attempt;
import dev.idem.core.Delivery;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.store.NodeRegistry;
import dev.idem.core.store.NodeRegistry.Joined;
import dev.idem.core.store.NodeRegistry.Node;
import dev.idem.core.store.NodeRegistry.NodeProcess;
import dev.idem.core.store.Store;
import dev.idem.core.store.StoreException;
import dev.idem.engine.internal.ThisProcess;
import dev.idem.engine.testing.Defs;
import dev.idem.engine.testing.Engines;
import dev.idem.engine.testing.Receiver;
import dev.idem.engine.testing.Receiver.Reply;
import dev.idem.engine.testing.World;
import dev.idem.store.testing.TestDatabase;
import dev.idem.store.testing.TestStores;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Node liveness with engines in this JVM on one PostgreSQL database, on real time with a short takeover
 * window. Other incarnations are written straight into the node registry: a process that ended on this machine, or a
 * node on another machine that stops renewing. The real-process tests (kill -9, SIGSTOP, a cut database connection)
 * are {@code FailoverIT} in idem-cli.
 */
class LivenessTest {
    static final Duration INTERVAL = Duration.ofMillis(200);
    static final Duration WINDOW = Duration.ofSeconds(3);
    static final Duration LEASE = Duration.ofSeconds(90);
    static final NodeProcess ELSEWHERE =
            new NodeProcess("other-host", "other-host/boot/pid:[1]", 77, Instant.parse("2026-01-01T00:00:00Z"));

    private final Clock clock = Clock.systemUTC();
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private TestDatabase db;
    private Store store;
    private World world;
    private Receiver receiver;

    @BeforeEach
    void setUp() throws Exception {
        db = TestStores.postgresDatabase();
        store = db.open(clock);
        world = new World(store, clock);
        receiver = Receiver.ok();
    }

    @AfterEach
    void tearDown() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) closeables.get(i).close();
        receiver.close();
        store.close();
        db.close();
    }

    private EngineConfig config(String nodeId) {
        return Engines.fast(nodeId).toBuilder()
                .livenessInterval(INTERVAL)
                .takeoverWindow(WINDOW)
                .build();
    }

    private Engine engine(Store on, EngineConfig config) {
        Engine e = new Engine(
                on, config, clock, new SplittableRandom(config.nodeId().hashCode()), meters);
        closeables.add(e);
        e.start();
        return e;
    }

    /** An incarnation of {@code nodeId} written straight into the registry, holding {@code n} fresh claims. */
    private List<Delivery> incarnationHolding(String nodeId, NodeProcess process, int n) {
        Node node = ((Joined) store.nodes().join(nodeId, process, (h, now) -> false)).node();
        List<Delivery> due = world.createMany(Defs.once(receiver.url("/hook"), clock.instant()), n);
        assertThat(store.queue().claimDue(node.owner(), LEASE, n)).hasSize(n);
        return due;
    }

    /** A process of this machine that has ended, as a node record would show it. */
    private static NodeProcess endedProcess() throws Exception {
        Process p = new ProcessBuilder("sleep", "60").start();
        Instant started = p.info().startInstant().orElseThrow();
        p.destroyForcibly().waitFor();
        NodeProcess me = ThisProcess.describe();
        return new NodeProcess(me.host(), me.machine(), p.pid(), started);
    }

    private void awaitSucceededAsSecondAttempt(List<Delivery> due) {
        await().atMost(30, SECONDS)
                .until(() -> due.stream().allMatch(d -> world.delivery(d.id()).status() == DeliveryStatus.SUCCEEDED));
        for (Delivery d : due)
            assertThat(receiver.requestsFor(d.id()))
                    .extracting(Receiver.Request::attempt)
                    .containsExactly(2);
    }

    @Test
    void aSecondLiveNodeWithTheSameIdIsRefusedAndTheFirstKeepsItsRecord() {
        engine(store, config("node-x"));
        Node first = store.nodes().find("node-x").orElseThrow();

        Store other = db.open(clock);
        closeables.add(other);
        Engine second = new Engine(other, config("node-x"), clock, new SplittableRandom(1), new SimpleMeterRegistry());
        closeables.add(second);
        assertThatThrownBy(second::start)
                .isInstanceOf(NodeIdInUseException.class)
                .hasMessageStartingWith("node id 'node-x' is already used by a live node (pid "
                        + ProcessHandle.current().pid())
                .hasMessageNotContaining("\n");
        assertThat(store.nodes().find("node-x")).hasValueSatisfying(n -> {
            assertThat(n.epoch()).isEqualTo(first.epoch());
            assertThat(n.status()).isEqualTo(NodeRegistry.Status.LIVE);
        });
    }

    @Test
    void aNodeRestartedUnderTheIdOfAProcessThatEndedOnThisMachineTakesItsClaimsBackAtOnce() throws Exception {
        List<Delivery> held = incarnationHolding("node-x", endedProcess(), 3);
        // a 60 s window: only the ended process, not the window, can explain a takeover within the test's 30 s
        engine(
                store,
                Engines.fast("node-x").toBuilder()
                        .livenessInterval(INTERVAL)
                        .takeoverWindow(Duration.ofSeconds(60))
                        .build());
        awaitSucceededAsSecondAttempt(held);
        assertThat(store.nodes().find("node-x"))
                .hasValueSatisfying(n -> assertThat(n.epoch()).isEqualTo(2));
        assertThat(meters.get("idem.leases.reclaimed").counter().count()).isEqualTo(3.0);
    }

    @Test
    void atStartANodeTakesOverTheClaimsOfAnotherNodeWhoseProcessEndedOnThisMachine() throws Exception {
        // SQLite's restart case: the default node id (host name + pid) differs from the previous process's
        List<Delivery> held = incarnationHolding("host-1234", endedProcess(), 3);
        engine(
                store,
                Engines.fast("host-5678").toBuilder()
                        .livenessInterval(INTERVAL)
                        .takeoverWindow(Duration.ofSeconds(60))
                        .build());
        awaitSucceededAsSecondAttempt(held);
        assertThat(store.nodes().find("host-1234")).hasValueSatisfying(n -> {
            assertThat(n.status()).isEqualTo(NodeRegistry.Status.DEAD);
            assertThat(n.takenOverBy()).isEqualTo("host-5678");
        });
    }

    @Test
    void aNodeWaitsOutTheWindowOnARecentRecordOfItsIdAndTakesItOverWhenNoRenewalComes() {
        List<Delivery> held = incarnationHolding("node-x", ELSEWHERE, 2);
        long started = System.nanoTime();
        engine(store, config("node-x"));
        assertThat(Duration.ofNanos(System.nanoTime() - started))
                .as("start waited for the window")
                .isGreaterThan(WINDOW.minusMillis(500));
        awaitSucceededAsSecondAttempt(held);
        assertThat(store.nodes().find("node-x"))
                .hasValueSatisfying(n -> assertThat(n.epoch()).isEqualTo(2));
    }

    @Test
    void aNodeIsRefusedWhenTheRecordOfItsIdIsRenewedWhileItWatches() throws Exception {
        List<Delivery> held = incarnationHolding("node-x", ELSEWHERE, 2);
        AtomicBoolean renewing = new AtomicBoolean(true);
        Thread other = new Thread(() -> {
            while (renewing.get()) {
                store.nodes().renew("node-x", 1);
                try {
                    Thread.sleep(INTERVAL.toMillis());
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        other.start();
        try {
            Engine second = new Engine(store, config("node-x"), clock, new SplittableRandom(1), meters);
            closeables.add(second);
            assertThatThrownBy(second::start)
                    .isInstanceOf(NodeIdInUseException.class)
                    .hasMessageContaining("pid 77 on other-host");
        } finally {
            renewing.set(false);
            other.join();
        }
        for (Delivery d : held) assertThat(world.delivery(d.id()).leaseOwner()).isEqualTo("node-x#1");
    }

    @Test
    void aLiveNodeDeclaresASilentNodeDeadAfterTheWindowAndSendsItsClaimsAsTheNextAttemptWithTheSameKey() {
        List<Delivery> held = incarnationHolding("ghost", ELSEWHERE, 5);
        engine(store, config("node-a"));
        awaitSucceededAsSecondAttempt(held);
        for (Delivery d : held)
            assertThat(receiver.requestsFor(d.id()).get(0).header("Idempotency-Key"))
                    .isEqualTo(d.idempotencyKey());
        assertThat(store.nodes().find("ghost")).hasValueSatisfying(n -> {
            assertThat(n.status()).isEqualTo(NodeRegistry.Status.DEAD);
            assertThat(n.takenOverBy()).isEqualTo("node-a");
            assertThat(n.silentFor(n.endedAt())).isGreaterThan(WINDOW);
        });
        assertThat(meters.get("idem.leases.reclaimed").counter().count()).isEqualTo(5.0);
    }

    @Test
    void aNodeThatCannotRenewStartsNothingAndDeclaresNoOneDeadUntilItHasBeenSteadyForAWindowAgain() {
        AtomicBoolean down = new AtomicBoolean();
        Store flaky = withNodeRegistryDown(store, down);
        List<Delivery> ghosts = incarnationHolding("ghost", ELSEWHERE, 2);
        engine(flaky, config("node-a"));
        down.set(true);
        long outageStart = System.nanoTime();
        // past half the window without a renewal the node starts nothing, though the queue itself is reachable
        await().atMost(10, SECONDS)
                .until(() -> meters.get("idem.node.live").gauge().value() == 0.0);
        List<Delivery> during = world.createMany(Defs.once(receiver.url("/hook"), clock.instant()), 3);
        await().during(Duration.ofSeconds(1))
                .atMost(Duration.ofSeconds(2))
                .until(() -> receiver.requests().isEmpty());
        await().until(() ->
                System.nanoTime() - outageStart > WINDOW.plusSeconds(1).toNanos());

        down.set(false);
        long back = System.nanoTime();
        await().atMost(10, SECONDS)
                .until(() ->
                        during.stream().allMatch(d -> world.delivery(d.id()).status() == DeliveryStatus.SUCCEEDED));
        // the ghost was silent past the window when node-a came back, but node-a had to be steady for a window first
        awaitSucceededAsSecondAttempt(ghosts);
        assertThat(Duration.ofNanos(System.nanoTime() - back))
                .as("takeover only after a steady window")
                .isGreaterThan(WINDOW);
    }

    @Test
    void aNodeDeclaredDeadStartsNoneOfItsClaimsItsLateOutcomesAreStaleAndItRejoinsAsANewIncarnation() {
        receiver.respond(r -> r.attempt() == 1 ? Reply.ok().after(Duration.ofSeconds(6)) : Reply.ok());
        AtomicBoolean down = new AtomicBoolean();
        Store flaky = withNodeRegistryDown(store, down);
        engine(flaky, config("node-a"));
        List<Delivery> due = world.createMany(Defs.once(receiver.url("/hook"), clock.instant()), 5);
        await().atMost(10, SECONDS).until(() -> receiver.requests().size() == 5);

        // node-a stops renewing (as if paused) with its requests in flight;
        // another node declares it dead after the window
        down.set(true);
        Node judge = ((Joined) store.nodes().join("judge", ELSEWHERE, (h, now) -> false)).node();
        await().atMost(20, SECONDS)
                .until(() -> store.nodes()
                                .takeOver(
                                        "judge",
                                        judge.epoch(),
                                        (n, now) -> n.nodeId().equals("node-a")
                                                && n.silentFor(now).compareTo(WINDOW) > 0)
                                .orElseThrow()
                                .takeovers()
                                .size()
                        == 1);
        assertThat(due)
                .allSatisfy(d -> assertThat(world.delivery(d.id()).status()).isEqualTo(DeliveryStatus.RETRYING));
        // the answers to its requests arrive now: recorded by node-a, dropped by the store
        await().atMost(20, SECONDS)
                .until(() -> meters.get("idem.deliveries")
                                .tag("outcome", "stale")
                                .counter()
                                .count()
                        == 5.0);

        down.set(false);
        await().atMost(30, SECONDS)
                .until(() -> due.stream().allMatch(d -> world.delivery(d.id()).status() == DeliveryStatus.SUCCEEDED));
        for (Delivery d : due) {
            assertThat(receiver.requestsFor(d.id()))
                    .extracting(Receiver.Request::attempt)
                    .containsExactly(1, 2);
            List<Attempt> history = world.attempts(d.id());
            assertThat(history)
                    .filteredOn(Attempt::succeeded)
                    .extracting(Attempt::number)
                    .containsExactly(2);
            assertThat(history)
                    .filteredOn(a -> a.number() == 1)
                    .singleElement()
                    .satisfies(a -> assertThat(a.error()).startsWith("stale: "));
        }
        assertThat(meters.get("idem.deliveries")
                        .tag("outcome", "succeeded")
                        .counter()
                        .count())
                .isEqualTo(5.0);
        assertThat(store.nodes().find("node-a")).hasValueSatisfying(n -> {
            assertThat(n.epoch()).isEqualTo(2);
            assertThat(n.status()).isEqualTo(NodeRegistry.Status.LIVE);
        });
    }

    /** {@code store} whose node registry fails (as an unreachable database would) while {@code down} is set. */
    static Store withNodeRegistryDown(Store store, AtomicBoolean down) {
        NodeRegistry real = store.nodes();
        NodeRegistry nodes = proxy(NodeRegistry.class, (m, args) -> {
            if (down.get()) throw new StoreException("database unreachable (test)", null, true);
            return m.invoke(real, args);
        });
        return proxy(Store.class, (m, args) -> m.getName().equals("nodes") ? nodes : m.invoke(store, args));
    }

    interface Call {
        Object invoke(java.lang.reflect.Method m, Object[] args) throws Exception;
    }

    @SuppressWarnings("unchecked")
    static <T> T proxy(Class<T> type, Call call) {
        return (T) Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (p, m, args) -> {
            try {
                return call.invoke(m, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        });
    }
}

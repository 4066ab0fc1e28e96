package dev.idem.engine;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idem.core.Attempt;
import dev.idem.core.Delivery;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.RetryPolicy;
import dev.idem.core.store.Store;
import dev.idem.engine.testing.Defs;
import dev.idem.engine.testing.Engines;
import dev.idem.engine.testing.Receiver;
import dev.idem.engine.testing.Receiver.Reply;
import dev.idem.engine.testing.World;
import dev.idem.store.testing.TestDatabase;
import dev.idem.store.testing.TestStores;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.File;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Several nodes on one PostgreSQL database, on real time. */
class MultiNodeTest {
    private final Clock clock = Clock.systemUTC();
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private TestDatabase db;
    private Receiver receiver;

    @TempDir
    Path dir;

    @BeforeEach
    void setUp() throws Exception {
        db = TestStores.postgresDatabase();
        receiver = Receiver.ok();
    }

    @AfterEach
    void tearDown() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) closeables.get(i).close();
        receiver.close();
        db.close();
    }

    private Store store() {
        Store s = db.open(clock);
        closeables.add(s);
        return s;
    }

    private Engine engine(Store store, EngineConfig config, SimpleMeterRegistry meters) {
        Engine e = new Engine(
                store, config, clock, new SplittableRandom(config.nodeId().hashCode()), meters);
        closeables.add(e);
        e.start();
        return e;
    }

    @Test
    void twoEnginesRacingOverAThousandDueDeliveriesSendEachOnceAndNeverTwiceAtOnce() {
        // every fifth delivery fails its first attempt, so retries race across nodes too
        receiver.respond(r -> r.attempt() == 1 && Math.floorMod(r.id().hashCode(), 5) == 0
                ? Reply.status(500)
                : Reply.ok().after(Duration.ofMillis(Math.floorMod(r.id().hashCode(), 3))));
        Store a = store();
        Store b = store();
        World world = new World(a, clock);
        List<Delivery> due = world.createMany(
                Defs.retry(
                        Defs.once(receiver.url("/hook"), clock.instant()),
                        new RetryPolicy(5, Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofHours(1)),
                        Duration.ofSeconds(10),
                        0),
                1000);
        assertThat(due).hasSize(1000);

        SimpleMeterRegistry metersA = new SimpleMeterRegistry();
        SimpleMeterRegistry metersB = new SimpleMeterRegistry();
        EngineConfig config = Engines.fast("node-a").toBuilder()
                .batchSize(50)
                .maxInFlight(2000)
                .build();
        engine(a, config, metersA).wakeUp();
        engine(b, config.toBuilder().nodeId("node-b").build(), metersB).wakeUp();

        await().atMost(60, SECONDS).until(() -> succeededCount(receiver) == 1000);
        for (Delivery d : due)
            assertThat(world.delivery(d.id()).status()).as(d.id()).isEqualTo(DeliveryStatus.SUCCEEDED);

        assertThat(receiver.maxInFlightPerDelivery()).isEqualTo(1);
        Map<String, List<Integer>> attemptsById = receiver.requests().stream()
                .collect(Collectors.groupingBy(
                        Receiver.Request::id, Collectors.mapping(Receiver.Request::attempt, Collectors.toList())));
        assertThat(attemptsById).hasSize(1000);
        attemptsById.forEach((id, attempts) -> {
            boolean failsFirst = Math.floorMod(id.hashCode(), 5) == 0;
            assertThat(attempts).as(id).containsExactlyElementsOf(failsFirst ? List.of(1, 2) : List.of(1));
        });
        double byA = metersA.get("idem.deliveries")
                .tag("outcome", "succeeded")
                .counter()
                .count();
        double byB = metersB.get("idem.deliveries")
                .tag("outcome", "succeeded")
                .counter()
                .count();
        assertThat(byA + byB).isEqualTo(1000.0);
        assertThat(byA).as("node-a's share").isPositive();
        assertThat(byB).as("node-b's share").isPositive();
    }

    @Test
    void flowControlParallelismHoldsAcrossTwoEnginesCountedAtTheReceiver() throws Exception {
        try (dev.idem.engine.testing.ParkingReceiver slow = new dev.idem.engine.testing.ParkingReceiver(
                new dev.idem.engine.testing.ParkingReceiver.Answer(Duration.ofMillis(100)))) {
            Store a = store();
            Store b = store();
            World world = new World(a, clock);
            // two schedules' worth of deliveries on one key, and both engines claiming at once
            List<Delivery> due = new ArrayList<>(world.createMany(
                    Defs.once(slow.url("/one"), clock.instant())
                            .withFlowControl(new dev.idem.core.FlowControl("shared", 4, null)),
                    60));
            due.addAll(world.createMany(
                    Defs.once(slow.url("/two"), clock.instant())
                            .withFlowControl(new dev.idem.core.FlowControl("shared", 4, null)),
                    60));
            SimpleMeterRegistry metersA = new SimpleMeterRegistry();
            SimpleMeterRegistry metersB = new SimpleMeterRegistry();
            engine(a, Engines.fast("node-a"), metersA).wakeUp();
            engine(b, Engines.fast("node-b"), metersB).wakeUp();

            await().atMost(60, SECONDS)
                    .until(() ->
                            due.stream().allMatch(d -> world.delivery(d.id()).status() == DeliveryStatus.SUCCEEDED));
            assertThat(slow.maxOpen())
                    .as("requests of flow key 'shared' at the receiver at once")
                    .isBetween(1, 4);
            assertThat(slow.requests()).isEqualTo(120);
            double byA = metersA.get("idem.deliveries")
                    .tag("outcome", "succeeded")
                    .counter()
                    .count();
            double byB = metersB.get("idem.deliveries")
                    .tag("outcome", "succeeded")
                    .counter()
                    .count();
            assertThat(byA).as("node-a's share").isPositive();
            assertThat(byB).as("node-b's share").isPositive();
        }
    }

    private static long succeededCount(Receiver receiver) {
        return receiver.requests().stream()
                .filter(r -> !(r.attempt() == 1 && Math.floorMod(r.id().hashCode(), 5) == 0))
                .count();
    }

    /**
     * The child holds 90 s leases and the survivor a 60 s takeover window: only the survivor's start-up sweep (the child's
     * process ended on this machine) can return the claims within the 30 s this test waits.
     */
    @Test
    void deliveriesOfANodeKilledWithSigkillMidRequestAreTakenOverAtOnceByANodeStartingOnTheSameMachine()
            throws Exception {
        // the doomed node's requests hang; the survivor's are answered at once
        receiver.respond(r -> r.attempt() == 1 ? Reply.ok().after(Duration.ofSeconds(30)) : Reply.ok());
        Store store = store();
        World world = new World(store, clock);
        List<Delivery> due = world.createMany(Defs.once(receiver.url("/hook"), clock.instant()), 20);

        Process child = startChild("doomed-node");
        try {
            await().atMost(60, SECONDS).until(() -> receiver.requests().size() == 20 || !child.isAlive());
            assertThat(child.isAlive())
                    .as("child node still running (see %s)", childLog())
                    .isTrue();
            child.destroyForcibly(); // SIGKILL on Linux: no shutdown hook, no lease release
            assertThat(child.waitFor(10, SECONDS)).isTrue();
            assertThat(child.exitValue()).isEqualTo(137);
        } finally {
            child.destroyForcibly();
        }
        for (Delivery d : due) {
            Delivery held = world.delivery(d.id());
            assertThat(held.status()).isEqualTo(DeliveryStatus.DELIVERING);
            assertThat(held.leaseOwner()).isEqualTo("doomed-node#1");
        }

        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        engine(
                store,
                Engines.fast("survivor").toBuilder()
                        .livenessInterval(Duration.ofSeconds(2))
                        .takeoverWindow(Duration.ofSeconds(60))
                        .build(),
                meters);
        await().atMost(30, SECONDS)
                .until(() -> due.stream().allMatch(d -> world.delivery(d.id()).status() == DeliveryStatus.SUCCEEDED));

        for (Delivery d : due) {
            List<Receiver.Request> got = receiver.requestsFor(d.id());
            assertThat(got).extracting(Receiver.Request::attempt).containsExactly(1, 2);
            assertThat(got).extracting(r -> r.header("Idempotency-Key")).containsOnly(d.idempotencyKey());
            assertThat(world.attempts(d.id())).extracting(Attempt::number).containsExactly(2);
        }
        assertThat(meters.get("idem.leases.reclaimed").counter().count()).isEqualTo(20.0);
    }

    private Process startChild(String nodeId) throws Exception {
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = List.of(
                java,
                "-Xmx256m",
                "-cp",
                cp,
                ChildNode.class.getName(),
                db.config().jdbcUrl(),
                String.valueOf(db.config().user()),
                nodeId);
        ProcessBuilder pb = new ProcessBuilder(cmd);
        // the child seals and opens secrets with this database's keys, as nodes sharing a database do
        pb.environment().put(ChildNode.KEYS_ENV, db.config().masterKeys().toJson());
        return pb.redirectErrorStream(true).redirectOutput(childLog()).start();
    }

    private File childLog() {
        return dir.resolve("child-node.log").toFile();
    }
}

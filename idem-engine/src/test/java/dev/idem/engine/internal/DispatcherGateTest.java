package dev.idem.engine.internal;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idem.core.Delivery;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.store.Store;
import dev.idem.engine.EngineConfig;
import dev.idem.engine.testing.Defs;
import dev.idem.engine.testing.Engines;
import dev.idem.engine.testing.World;
import dev.idem.store.testing.TestStores;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The dispatcher under its node's liveness ({@link ClaimGate}), on a real SQLite store. */
class DispatcherGateTest {
    @TempDir
    Path dir;

    private final Clock clock = Clock.systemUTC();
    /** 90 s leases and no reaper: only the dispatcher itself can return a row it holds. */
    private final EngineConfig config = Engines.fast("node-a").toBuilder()
            .lease(Duration.ofSeconds(90))
            .maxRequestTimeout(Duration.ofSeconds(30))
            .build();

    private final Map<String, Integer> sentWithAttempt = new ConcurrentHashMap<>();
    private Store store;
    private World world;
    private ExecutorService senders;
    private java.util.concurrent.ScheduledExecutorService timer;
    private Dispatcher dispatcher;
    private Thread loop;

    /** A gate the test turns: the owner to claim as, whether it may claim, and which owner's claims may start. */
    private final AtomicReference<String> owner = new AtomicReference<>("node-a#1");

    private final AtomicBoolean mayClaim = new AtomicBoolean(true);
    private final AtomicInteger refuseStarts = new AtomicInteger();

    @BeforeEach
    void setUp() {
        store = TestStores.sqlite(dir, clock);
        world = new World(store, clock);
        senders = Executors.newFixedThreadPool(4);
        timer = Executors.newSingleThreadScheduledExecutor();
    }

    @AfterEach
    void tearDown() throws Exception {
        if (dispatcher != null) dispatcher.stop();
        if (loop != null) loop.join(5_000);
        senders.shutdownNow();
        timer.shutdownNow();
        store.close();
    }

    private void startDispatcher() {
        ClaimGate gate = new ClaimGate() {
            @Override
            public String owner() {
                return owner.get();
            }

            @Override
            public boolean mayClaim() {
                return mayClaim.get();
            }

            @Override
            public boolean mayStart(String claimedAs) {
                return claimedAs.equals(owner.get()) && refuseStarts.getAndUpdate(n -> Math.max(0, n - 1)) == 0;
            }
        };
        // "sends" each attempt and records it as succeeded before returning, as the recorder would
        dispatcher = new Dispatcher(
                store.queue(),
                config,
                clock,
                senders,
                timer,
                new dev.idem.engine.testing.InstantAttempts(claim -> {
                    Delivery d = claim.delivery();
                    sentWithAttempt.merge(d.id(), d.attemptCount(), (a, b) -> -1);
                    store.queue().complete(owner.get(), List.of(Defs.succeeded(d, clock.instant())));
                }),
                gate,
                new Wakeups());
        loop = new Thread(dispatcher.claimLoop());
        loop.start();
    }

    @Test
    void whileTheNodeMayNotClaimNothingIsClaimedAndOnceItMayEverythingGoesOut() {
        mayClaim.set(false);
        startDispatcher();
        List<Delivery> due = world.createMany(Defs.once("http://127.0.0.1:1/hook", clock.instant()), 3);
        dispatcher.wakeUp();
        await().during(Duration.ofMillis(500)).atMost(2, SECONDS).until(sentWithAttempt::isEmpty);
        assertThat(due)
                .allSatisfy(d -> assertThat(world.delivery(d.id()).status()).isEqualTo(DeliveryStatus.SCHEDULED));

        mayClaim.set(true);
        dispatcher.wakeUp();
        await().atMost(10, SECONDS).until(() -> sentWithAttempt.size() == 3);
        assertThat(sentWithAttempt)
                .allSatisfy((id, attempt) -> assertThat(attempt).isEqualTo(1));
    }

    @Test
    void claimsThatMayNotStartAreNotSentAndWhileTheyAreStillTheNodesTheyGoOutAgainAsTheNextAttempt() {
        refuseStarts.set(3);
        startDispatcher();
        List<Delivery> due = world.createMany(Defs.once("http://127.0.0.1:1/hook", clock.instant()), 3);
        dispatcher.wakeUp();
        // the three refused starts were never sent; the dispatcher returned
        // the rows it still held and claimed them again
        await().atMost(10, SECONDS)
                .until(() -> due.stream().allMatch(d -> world.delivery(d.id()).status() == DeliveryStatus.SUCCEEDED));
        assertThat(sentWithAttempt)
                .containsOnlyKeys(due.stream().map(Delivery::id).toList())
                .allSatisfy((id, attempt) -> assertThat(attempt)
                        .as("attempt of " + id + " (-1: sent twice)")
                        .isEqualTo(2));
    }

    @Test
    void claimsOfAnIncarnationDeclaredDeadBeforeTheirAttemptStartedAreNeverSent() throws Exception {
        // every sender thread busy: the claims wait in the pool's queue
        java.util.concurrent.CountDownLatch busy = new java.util.concurrent.CountDownLatch(1);
        for (int i = 0; i < 4; i++)
            senders.execute(() -> {
                try {
                    busy.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        startDispatcher();
        List<Delivery> due = world.createMany(Defs.once("http://127.0.0.1:1/hook", clock.instant()), 3);
        dispatcher.wakeUp();
        await().atMost(10, SECONDS)
                .until(() -> due.stream()
                        .allMatch(d -> "node-a#1".equals(world.delivery(d.id()).leaseOwner())));

        // declared dead meanwhile: its claims went back to the queue (as the takeover does) and it rejoined as #2
        owner.set("node-a#2");
        assertThat(store.queue().release("node-a#1")).isEqualTo(3);
        busy.countDown();
        dispatcher.wakeUp();
        await().atMost(10, SECONDS)
                .until(() -> due.stream().allMatch(d -> world.delivery(d.id()).status() == DeliveryStatus.SUCCEEDED));
        assertThat(sentWithAttempt)
                .allSatisfy((id, attempt) -> assertThat(attempt)
                        .as("attempt of " + id + " (-1: sent twice)")
                        .isEqualTo(2));
    }
}

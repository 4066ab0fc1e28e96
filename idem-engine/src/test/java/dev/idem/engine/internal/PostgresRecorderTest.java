package dev.idem.engine.internal;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Delivery;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.store.DeliveryQueue;
import dev.idem.core.store.DeliveryQueue.Claim;
import dev.idem.core.store.DeliveryQueue.Outcome;
import dev.idem.core.store.Store;
import dev.idem.engine.testing.Defs;
import dev.idem.engine.testing.ForwardingQueue;
import dev.idem.engine.testing.World;
import dev.idem.store.testing.TestStores;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The recorder's second writer ({@link Recorder#helper()}) on a real PostgreSQL store: it writes a batch beside the
 * main loop's only while a full batch is queued behind the one being written, and with both running every outcome is
 * written once and a stop flushes them all.
 */
class PostgresRecorderTest {
    private static final String OWNER = "node-a#1";
    private final Clock clock = Clock.systemUTC();
    private Store store;
    private World world;

    @BeforeEach
    void setUp() {
        store = TestStores.postgres(clock);
        world = new World(store, clock);
    }

    @AfterEach
    void tearDown() {
        store.close();
    }

    @Test
    void aFullBatchQueuedBehindTheOneBeingWrittenIsWrittenBesideItAndAStopFlushesEveryOutcomeOnce() throws Exception {
        List<Outcome> outcomes = claimedAndAnswered(1_200);
        // the first write waits (up to 10 s) for a second one to start beside it
        OverlapWatch queue = new OverlapWatch(store.queue(), 10_000);

        int written = record(queue, outcomes);

        assertThat(queue.most.get())
                .as("two writes at once: %d outcomes queued behind the first batch", 1_200 - queue.sizes.get(0))
                .isEqualTo(2);
        assertThat(queue.sizes.get(0)).as("the first batch").isLessThanOrEqualTo(100);
        assertThat(queue.sizes).allSatisfy(size -> assertThat(size).isLessThanOrEqualTo(500));
        assertThat(queue.sizes.stream().mapToInt(Integer::intValue).sum()).isEqualTo(1_200);
        assertThat(written).isEqualTo(1_200);
        assertEverySucceededOnce(outcomes);
    }

    @Test
    void lessThanAFullBatchQueuedIsLeftToTheMainLoopAndAStopFlushesEveryOutcomeOnce() throws Exception {
        List<Outcome> outcomes = claimedAndAnswered(400);
        // the first write takes at most 100 and waits 300 ms for a second one, which must not come though 300 more are
        // queued behind it: the helper looks at least every 50 ms
        OverlapWatch queue = new OverlapWatch(store.queue(), 300);

        int written = record(queue, outcomes);

        assertThat(queue.most.get()).as("writes at once").isEqualTo(1);
        assertThat(written).isEqualTo(400);
        assertEverySucceededOnce(outcomes);
    }

    /**
     * Runs the main loop and the helper; submits the first 100 outcomes, and the rest once the first write has started
     * (and is held by {@code queue}), so the rest queue behind it; then stops the recorder straight away. Returns how
     * many were written (done) by the time both writers ended.
     */
    private int record(OverlapWatch queue, List<Outcome> outcomes) throws InterruptedException {
        Recorder recorder = new Recorder(queue, () -> OWNER, new EngineMetrics(new SimpleMeterRegistry()));
        Thread main = new Thread(recorder, "recorder-main");
        Thread helper = new Thread(recorder.helper(), "recorder-helper");
        main.start();
        helper.start();
        CountDownLatch done = new CountDownLatch(outcomes.size());
        for (Outcome o : outcomes.subList(0, 100)) recorder.submit(o, done::countDown);
        assertThat(queue.firstStarted.await(10, SECONDS))
                .as("the first write started")
                .isTrue();
        for (Outcome o : outcomes.subList(100, outcomes.size())) recorder.submit(o, done::countDown);
        recorder.stop(SECONDS.toNanos(5));
        main.join(30_000);
        helper.join(30_000);
        assertThat(main.isAlive() || helper.isAlive())
                .as("a writer still running after stop")
                .isFalse();
        return outcomes.size() - (int) done.getCount();
    }

    private List<Outcome> claimedAndAnswered(int n) {
        List<Delivery> due = world.createMany(Defs.once("http://127.0.0.1:1/hook", clock.instant()), n);
        List<Claim> claims = new ArrayList<>();
        for (int i = 0; i < 10 && claims.size() < n; i++)
            claims.addAll(store.queue().claimDue(OWNER, Duration.ofSeconds(90), 1_000));
        assertThat(claims).hasSize(due.size());
        List<Outcome> outcomes = new ArrayList<>(n);
        for (Claim c : claims) outcomes.add(Defs.succeeded(c.delivery(), clock.instant()));
        return outcomes;
    }

    private void assertEverySucceededOnce(List<Outcome> outcomes) {
        store.useTransaction(tx -> {
            for (Outcome o : outcomes) {
                Delivery d = tx.deliveries().find(Defs.TENANT, o.deliveryId()).orElseThrow();
                assertThat(d.status()).as(d.id()).isEqualTo(DeliveryStatus.SUCCEEDED);
                assertThat(tx.deliveries().attempts(d.id()))
                        .as("attempts of " + d.id())
                        .hasSize(1);
            }
        });
    }

    /** Counts {@code complete} calls running at once; the first one waits up to {@code holdMs} for a second to start. */
    private static final class OverlapWatch extends ForwardingQueue {
        final AtomicInteger running = new AtomicInteger();
        final AtomicInteger most = new AtomicInteger();
        final List<Integer> sizes = java.util.Collections.synchronizedList(new ArrayList<>());
        final CountDownLatch firstStarted = new CountDownLatch(1);
        private final CountDownLatch second = new CountDownLatch(1);
        private final AtomicBoolean first = new AtomicBoolean(true);
        private final long holdMs;

        OverlapWatch(DeliveryQueue real, long holdMs) {
            super(real);
            this.holdMs = holdMs;
        }

        @Override
        public Completed complete(String owner, List<Outcome> outcomes) {
            int now = running.incrementAndGet();
            most.accumulateAndGet(now, Math::max);
            sizes.add(outcomes.size());
            if (now >= 2) second.countDown();
            try {
                if (first.compareAndSet(true, false)) {
                    firstStarted.countDown();
                    second.await(holdMs, MILLISECONDS);
                }
                return real.complete(owner, outcomes);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            } finally {
                running.decrementAndGet();
            }
        }
    }
}

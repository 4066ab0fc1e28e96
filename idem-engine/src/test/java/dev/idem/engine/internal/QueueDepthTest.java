package dev.idem.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.store.Store;
import dev.idem.engine.testing.Defs;
import dev.idem.engine.testing.ForwardingQueue;
import dev.idem.engine.testing.World;
import dev.idem.store.testing.TestStores;
import dev.idem.wire.testing.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The queue-depth gauge counts a real SQLite store's queue, and a slow count is not repeated at every beat. */
class QueueDepthTest {
    @TempDir
    Path dir;

    private final MutableClock clock = MutableClock.at("2026-03-10T17:00:00Z");
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    @Test
    void aCountThatTookOneSecondIsNotTakenAgainForFiftySecondsAndACheapOneAtEveryBeat() {
        try (Store store = TestStores.sqlite(dir, clock)) {
            new World(store, clock)
                    .createMany(Defs.once("http://127.0.0.1:9/", clock.instant().plusSeconds(60)), 3);
            AtomicInteger counts = new AtomicInteger();
            AtomicReference<Duration> countTakes = new AtomicReference<>(Duration.ofSeconds(1));
            ForwardingQueue slow = new ForwardingQueue(store.queue()) {
                @Override
                public long depth() {
                    counts.incrementAndGet();
                    clock.advance(countTakes.get());
                    return real.depth();
                }
            };
            QueueDepth depth = new QueueDepth(slow, clock, new EngineMetrics(meters));

            depth.sample();
            assertThat(counts).hasValue(1);
            assertThat(gauge()).isEqualTo(3);

            clock.advance(Duration.ofSeconds(48)); // 49 s after the count began
            depth.sample();
            assertThat(counts).as("49 s after a count that took 1 s").hasValue(1);

            clock.advance(Duration.ofSeconds(1)); // 50 s after
            depth.sample();
            assertThat(counts).as("50 s after it").hasValue(2);

            countTakes.set(Duration.ZERO);
            clock.advance(Duration.ofSeconds(50));
            depth.sample();
            depth.sample();
            depth.sample();
            assertThat(counts).as("counts that take no time, at every beat").hasValue(5);
            assertThat(gauge()).isEqualTo(3);
        }
    }

    @Test
    void aClockThatWentBackDoesNotHoldTheNextCountOff() {
        try (Store store = TestStores.sqlite(dir, clock)) {
            AtomicInteger counts = new AtomicInteger();
            ForwardingQueue slow = new ForwardingQueue(store.queue()) {
                @Override
                public long depth() {
                    counts.incrementAndGet();
                    clock.advance(Duration.ofSeconds(1));
                    return real.depth();
                }
            };
            QueueDepth depth = new QueueDepth(slow, clock, new EngineMetrics(meters));

            depth.sample();
            clock.advance(Duration.ofHours(-1));
            depth.sample();
            assertThat(counts)
                    .as("an hour back, within the 50 s a 1 s count holds the next off")
                    .hasValue(2);
        }
    }

    private double gauge() {
        return meters.get("idem.queue.depth").gauge().value();
    }
}

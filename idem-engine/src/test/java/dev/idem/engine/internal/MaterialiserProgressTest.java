package dev.idem.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.IdGenerator;
import dev.idem.core.fanout.FanOutTarget;
import dev.idem.core.store.Store;
import dev.idem.engine.testing.Defs;
import dev.idem.engine.testing.World;
import dev.idem.store.testing.TestStores;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MaterialiserProgressTest {
    private static final Instant NOW = Instant.parse("2026-03-10T08:00:00Z");

    @TempDir
    Path dir;

    @Test
    void aFullPageOfFanOutsNotYetDueIsReadOnceARunInsteadOfOverAndOver() {
        Clock fixed = Clock.fixed(NOW, ZoneOffset.UTC);
        try (Store store = TestStores.sqlite(dir, fixed)) {
            World world = new World(store, fixed);
            // due within the horizon, but a fan-out is written only once due: nothing of these can move yet
            String target = new FanOutTarget("report.daily", null).uri();
            for (int i = 0; i < 3; i++) world.createScheduleOnly(Defs.once(target, NOW.plusSeconds(30)));
            ReadCounting clock = new ReadCounting(NOW);
            Materialiser materialiser = new Materialiser(
                    store, new IdGenerator(fixed, new SecureRandom()), clock, Duration.ofSeconds(60), () -> {}, 2);

            assertThat(materialiser.runOnce()).isZero();
            assertThat(clock.reads.get())
                    .as("pages read in one run (each reads the clock once)")
                    .isEqualTo(1);
        }
    }

    /** A fixed clock that counts how often it is read. */
    private static final class ReadCounting extends Clock {
        final AtomicInteger reads = new AtomicInteger();
        private final Instant now;

        ReadCounting(Instant now) {
            this.now = now;
        }

        @Override
        public Instant instant() {
            reads.incrementAndGet();
            return now;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }
}

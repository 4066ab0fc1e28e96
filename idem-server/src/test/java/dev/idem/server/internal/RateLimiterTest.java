package dev.idem.server.internal;

import static org.assertj.core.api.Assertions.assertThatCode;

import dev.idem.wire.testing.MutableClock;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class RateLimiterTest {
    @Test
    void aCallerThatReadTheClockBeforeItsNeighbourTookATokenDoesNotDrainTheBucket() {
        MutableClock clock = MutableClock.at(Instant.parse("2030-01-01T00:00:01Z"));
        RateLimiter limiter = new RateLimiter(0, clock);
        limiter.acquire("k", 100_000, "source s");
        // a concurrent caller read the clock a second earlier and reaches the bucket second
        clock.set(Instant.parse("2030-01-01T00:00:00Z"));
        for (int i = 0; i < 1_000; i++)
            assertThatCode(() -> limiter.acquire("k", 100_000, "source s")).doesNotThrowAnyException();
    }
}

package dev.idem.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class DueSoonTest {
    private static final Instant NOW = Instant.parse("2026-03-10T17:00:00Z");

    @Test
    void aDeliveryDueWithinTwoLookAheadsSignalsTheDispatchers() {
        assertThat(DueSoon.signals(NOW.minusSeconds(5), NOW)).isTrue();
        assertThat(DueSoon.signals(NOW.plus(DueSoon.LOOKAHEAD), NOW)).isTrue();
        assertThat(DueSoon.signals(NOW.plus(DueSoon.LOOKAHEAD.multipliedBy(2)).minusMillis(1), NOW))
                .isTrue();
    }

    @Test
    void aLaterDeliveryIsLeftToTheDispatchersTimers() {
        assertThat(DueSoon.signals(NOW.plus(DueSoon.LOOKAHEAD.multipliedBy(2)), NOW))
                .isFalse();
        assertThat(DueSoon.signals(NOW.plus(Duration.ofMinutes(1)), NOW)).isFalse();
    }
}

package dev.idem.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class IdempotencyWindowTest {
    private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");

    @Test
    void aKeyIsRememberedForTwentyFourHoursToTheMillisecond() {
        assertThat(IdempotencyWindow.LENGTH).isEqualTo(Duration.ofHours(24));
        assertThat(IdempotencyWindow.expired(T0, T0)).isFalse();
        assertThat(IdempotencyWindow.expired(T0, T0.plus(Duration.ofHours(24)))).isFalse();
        assertThat(IdempotencyWindow.expired(T0, T0.plus(Duration.ofHours(24)).plusMillis(1)))
                .isTrue();
    }
}

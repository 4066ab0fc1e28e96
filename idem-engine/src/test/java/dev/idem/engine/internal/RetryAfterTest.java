package dev.idem.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class RetryAfterTest {
    private final Instant now = Instant.parse("2026-03-10T17:00:00Z");

    @Test
    void readsDeltaSeconds() {
        assertThat(RetryAfter.parse("120", now)).contains(Duration.ofSeconds(120));
        assertThat(RetryAfter.parse(" 0 ", now)).contains(Duration.ZERO);
    }

    @Test
    void readsAnHttpDateAsTheWaitFromNow() {
        assertThat(RetryAfter.parse("Tue, 10 Mar 2026 17:05:00 GMT", now)).contains(Duration.ofMinutes(5));
    }

    @Test
    void anHttpDateInThePastMeansNoWait() {
        assertThat(RetryAfter.parse("Tue, 10 Mar 2026 16:00:00 GMT", now)).contains(Duration.ZERO);
    }

    @Test
    void ignoresWhatItCannotRead() {
        assertThat(RetryAfter.parse(null, now)).isEmpty();
        assertThat(RetryAfter.parse("", now)).isEmpty();
        assertThat(RetryAfter.parse("soon", now)).isEmpty();
        assertThat(RetryAfter.parse("-5", now)).isEmpty();
    }

    @Test
    void aHugeDeltaIsKeptHugeSoThePolicyClampsIt() {
        assertThat(RetryAfter.parse("99999999999999999999", now).orElseThrow()).isGreaterThan(Duration.ofDays(365));
    }
}

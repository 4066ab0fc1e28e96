package dev.idem.core.outcome;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class FailureStreakTest {
    static final boolean OK = true;
    static final boolean FAIL = false;

    @Test
    void failuresOnlyAddToTheStoredCounter() {
        FailureStreak s = FailureStreak.of(List.of(FAIL, FAIL));
        assertThat(s.apply(3)).isEqualTo(5);
        assertThat(s.reaches(3, 5)).isTrue();
        assertThat(s.reaches(2, 5)).isFalse();
    }

    @Test
    void theCounterRestartsAfterTheLastSuccess() {
        FailureStreak s = FailureStreak.of(List.of(FAIL, OK, FAIL, FAIL, OK, FAIL));
        assertThat(s.apply(10)).isEqualTo(1);
    }

    @Test
    void aThresholdReachedBeforeASuccessStillCounts() {
        FailureStreak s = FailureStreak.of(List.of(FAIL, FAIL, OK));
        assertThat(s.apply(3)).isZero();
        assertThat(s.reaches(3, 5)).isTrue();
        assertThat(s.reaches(2, 5)).isFalse();
    }

    @Test
    void aRunBetweenSuccessesCountsFromZero() {
        FailureStreak s = FailureStreak.of(List.of(OK, FAIL, FAIL, FAIL, OK));
        assertThat(s.reaches(100, 3)).isTrue();
        assertThat(s.reaches(100, 4)).isFalse();
    }

    @Test
    void zeroMeansNeverAndSuccessesAloneNeverPause() {
        assertThat(FailureStreak.of(List.of(FAIL, FAIL, FAIL)).reaches(50, 0)).isFalse();
        assertThat(FailureStreak.of(List.of(OK)).reaches(50, 5)).isFalse();
    }
}

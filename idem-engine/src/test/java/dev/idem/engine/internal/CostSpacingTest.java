package dev.idem.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The pass-over's spacing (Dispatcher): at least a second, and at least 50 times the last run's duration. */
class CostSpacingTest {
    final CostSpacing spacing = new CostSpacing(Dispatcher.PASS_OVER_SPACING_MS, Dispatcher.PASS_OVER_COST_SPACING);

    @Test
    void theFirstPassOverMayRunAtOnce() {
        assertThat(spacing.waitMillis(0)).isZero();
        assertThat(spacing.waitMillis(1_700_000_000_000L)).isZero();
    }

    @Test
    void aQuickPassOverIsFollowedByTheNextASecondAfterItBegan() {
        spacing.ran(10_000, 10_004);

        assertThat(spacing.waitMillis(10_004)).isEqualTo(996);
        assertThat(spacing.waitMillis(10_999)).isEqualTo(1);
        assertThat(spacing.waitMillis(11_000)).isZero();
    }

    @Test
    void aSlowPassOverIsFollowedByTheNextFiftyTimesItsDurationAfterItBegan() {
        spacing.ran(10_000, 11_000);

        assertThat(spacing.waitMillis(11_000)).isEqualTo(49_000);
        assertThat(spacing.waitMillis(59_999)).isEqualTo(1);
        assertThat(spacing.waitMillis(60_000)).isZero();
    }

    @Test
    void aClockThatWentBackDoesNotHoldTheNextOneOff() {
        spacing.ran(10_000, 11_000);

        assertThat(spacing.waitMillis(9_999))
                .as("an hour's step back would otherwise wait an hour more")
                .isZero();
    }
}

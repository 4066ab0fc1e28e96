package dev.idem.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AdaptiveLimitTest {
    @Test
    void answersDoubleItEveryRoundTripUpToTheNodesBound() {
        AdaptiveLimit l = new AdaptiveLimit(64, 10_000);
        for (int round = 0; round < 5; round++) {
            int inFlight = l.get();
            for (int i = 0; i < inFlight; i++) l.onAnswer(inFlight);
        }
        assertThat(l.get()).isEqualTo(64 << 5);
        for (int i = 0; i < 100_000; i++) l.onAnswer(l.get());
        assertThat(l.get()).isEqualTo(10_000);
        assertThat(l.throttled()).isFalse();
    }

    @Test
    void dropsHalveItDownToASingleProbeAndItRecoversToTheStartThenGrowsSlowly() {
        AdaptiveLimit l = new AdaptiveLimit(64, 10_000);
        for (int i = 0; i < 64; i++) l.onDrop();
        assertThat(l.get()).isEqualTo(1);
        assertThat(l.throttled()).isTrue();
        l.onDrop();
        assertThat(l.get()).as("never below one probe").isEqualTo(1);

        for (int round = 0; round < 6; round++) {
            int inFlight = l.get();
            for (int i = 0; i < inFlight; i++) l.onAnswer(inFlight);
        }
        assertThat(l.get()).isEqualTo(64);
        assertThat(l.throttled()).isFalse();
        for (int i = 0; i < 70; i++) l.onAnswer(l.get());
        assertThat(l.get()).as("one more per round trip past the start after a drop").isEqualTo(65);
    }

    @Test
    void answersDoNotGrowALimitThatIsNotHoldingTheDestinationBack() {
        AdaptiveLimit l = new AdaptiveLimit(64, 10_000);
        for (int i = 0; i < 10_000; i++) l.onAnswer(10);
        assertThat(l.get()).as("a fast destination using 10 of its 64").isEqualTo(64);
        l.onAnswer(32);
        assertThat(l.get()).isEqualTo(65);
    }

    @Test
    void aSingleResetOfABusyDestinationHalvesItOnce() {
        AdaptiveLimit l = new AdaptiveLimit(64, 10_000);
        for (int i = 0; i < 1000; i++) l.onAnswer(l.get());
        int before = l.get();
        l.onDrop();
        assertThat(l.get()).isEqualTo(before / 2);
        assertThat(l.throttled()).isFalse();
    }
}

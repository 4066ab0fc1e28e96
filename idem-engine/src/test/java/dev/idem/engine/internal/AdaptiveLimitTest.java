package dev.idem.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class AdaptiveLimitTest {
    /** A receiver answering in 250 ms whatever the load: its round trip never grows. */
    private static final long SLOW = TimeUnit.MILLISECONDS.toNanos(250);

    private long now;

    private void answer(AdaptiveLimit l, int wanted, long rttNanos) {
        now += TimeUnit.MICROSECONDS.toNanos(100);
        l.onAnswer(wanted, rttNanos, now);
    }

    @Test
    void answersDoubleItEveryRoundTripUpToTheNodesBound() {
        AdaptiveLimit l = new AdaptiveLimit(64, 10_000);
        for (int round = 0; round < 5; round++) {
            int inFlight = l.get();
            for (int i = 0; i < inFlight; i++) answer(l, inFlight, SLOW);
        }
        assertThat(l.get()).isEqualTo(64 << 5);
        for (int i = 0; i < 100_000; i++) answer(l, l.get(), SLOW);
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
            for (int i = 0; i < inFlight; i++) answer(l, inFlight, SLOW);
        }
        assertThat(l.get()).isEqualTo(64);
        assertThat(l.throttled()).isFalse();
        for (int i = 0; i < 70; i++) answer(l, l.get(), SLOW);
        assertThat(l.get())
                .as("one more per round trip past the start after a drop")
                .isEqualTo(65);
    }

    @Test
    void answersDoNotGrowALimitThatIsNotHoldingTheDestinationBack() {
        AdaptiveLimit l = new AdaptiveLimit(64, 10_000);
        for (int i = 0; i < 10_000; i++) answer(l, 10, SLOW);
        assertThat(l.get()).as("a fast destination using 10 of its 64").isEqualTo(64);
        answer(l, 32, SLOW);
        assertThat(l.get()).isEqualTo(65);
    }

    @Test
    void aSingleResetOfABusyDestinationHalvesItOnce() {
        AdaptiveLimit l = new AdaptiveLimit(64, 10_000);
        for (int i = 0; i < 1000; i++) answer(l, l.get(), SLOW);
        int before = l.get();
        l.onDrop();
        assertThat(l.get()).isEqualTo(before / 2);
        assertThat(l.throttled()).isFalse();
    }

    @Test
    void aDestinationWhoseAnswersSlowDownAsTheLimitGrowsStopsGrowing() {
        // a fast receiver saturated by its load: alone it answers in 0.3 ms, with n in flight in n * 0.1 ms
        AdaptiveLimit l = new AdaptiveLimit(64, 10_000);
        answer(l, 1, TimeUnit.MICROSECONDS.toNanos(300));
        for (int i = 0; i < 100_000; i++) answer(l, 10_000, TimeUnit.MICROSECONDS.toNanos(100) * l.get());
        assertThat(l.get())
                .as("grows only while the smoothed round trip stays within twice the least one")
                .isLessThan(100);
        assertThat(l.throttled()).isFalse();
    }

    @Test
    void oneLateAnswerDoesNotEndTheGrowthOfAHealthySlowDestination() {
        AdaptiveLimit l = new AdaptiveLimit(64, 10_000);
        for (int i = 0; i < 64; i++) answer(l, l.get(), SLOW);
        answer(l, l.get(), 3 * SLOW);
        for (int i = 0; i < 2_000; i++) answer(l, l.get(), SLOW);
        assertThat(l.get()).as("still doubling: 64 + 64 + 2,000 answers").isGreaterThan(2_000);
    }

    @Test
    void aSlowDownThatPassesResumesTheDoublingOfAHealthySlowDestination() {
        // measured with the bench's JDK receiver: the first round trips of a burst came back late while hundreds of
        // connections opened, slow start ended near 250, and the rest of the burst crawled at one more per round trip
        AdaptiveLimit l = new AdaptiveLimit(64, 10_000);
        for (int i = 0; i < 64; i++) answer(l, l.get(), SLOW);
        for (int i = 0; i < 64; i++) answer(l, l.get(), 4 * SLOW);
        int ended = l.get();
        for (int i = 0; i < 20; i++) answer(l, l.get(), SLOW);
        assertThat(l.get())
                .as("slow start ended: no doubling while the round trip settles")
                .isLessThan(ended + 2);
        for (int i = 0; i < 3_000; i++) answer(l, l.get(), SLOW);
        assertThat(l.get())
                .as("back to 250 ms for a round trip's worth of answers: doubling again")
                .isGreaterThan(2_000);
    }

    @Test
    void aDestinationThatStaysSlowAfterSlowStartEndedDoesNotResumeIt() {
        AdaptiveLimit l = new AdaptiveLimit(64, 10_000);
        for (int i = 0; i < 64; i++) answer(l, l.get(), SLOW);
        for (int i = 0; i < 10_000; i++) answer(l, l.get(), 3 * SLOW);
        assertThat(l.get()).as("its round trip tripled and stayed so").isLessThan(200);
    }

    @Test
    void aDropEndsSlowStartForGoodEvenIfTheRoundTripIsCalm() {
        AdaptiveLimit l = new AdaptiveLimit(64, 10_000);
        for (int i = 0; i < 1_000; i++) answer(l, l.get(), SLOW);
        for (int i = 0; i < 100; i++) answer(l, l.get(), 4 * SLOW);
        l.onDrop();
        int after = l.get();
        for (int i = 0; i < 3 * after; i++) answer(l, l.get(), SLOW);
        assertThat(l.get()).as("one more per round trip after a drop").isLessThan(after + 5);
    }

    @Test
    void theLeastRoundTripIsForgottenSoADestinationThatBecameSlowerForGoodGrowsAgain() {
        AdaptiveLimit l = new AdaptiveLimit(64, 10_000);
        answer(l, 1, TimeUnit.MILLISECONDS.toNanos(1));
        for (int i = 0; i < 1_000; i++) answer(l, l.get(), SLOW);
        assertThat(l.get()).as("250 ms against a 1 ms best: saturated").isEqualTo(64);
        now += AdaptiveLimit.MIN_RTT_WINDOW_NANOS;
        for (int i = 0; i < 1_000; i++) answer(l, l.get(), SLOW);
        assertThat(l.get()).isGreaterThan(64);
    }
}

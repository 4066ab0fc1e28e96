package dev.idem.core.outcome;

import java.util.List;

/**
 * What a batch of outcomes, in order, does to one schedule's count of consecutive failures: applied as one update so a
 * batch changes each schedule once, yet with the same result as applying the outcomes one by one (including a pause
 * reached midway and not undone by a later success).
 *
 * @param reset whether any outcome succeeded (the counter restarts from the last success)
 * @param leading failures before the first success (all of them when none succeeded): added to the stored counter
 * @param trailing failures after the last success: the new counter when {@code reset}
 * @param longestAfterReset the longest run of failures that follows a success
 */
public record FailureStreak(boolean reset, int leading, int trailing, int longestAfterReset) {
    /** The streak of {@code successes}, one per outcome in order: true for a success. */
    public static FailureStreak of(List<Boolean> successes) {
        boolean reset = false;
        int leading = 0;
        int run = 0;
        int longest = 0;
        for (boolean ok : successes) {
            if (ok) {
                reset = true;
                run = 0;
            } else if (!reset) {
                leading++;
            } else {
                run++;
                longest = Math.max(longest, run);
            }
        }
        return new FailureStreak(reset, leading, reset ? run : leading, longest);
    }

    /** The new counter given the stored one. */
    public int apply(int stored) {
        return reset ? trailing : stored + leading;
    }

    /** Whether applying the outcomes one by one would have reached {@code autoPauseAfter} (0 = never). */
    public boolean reaches(int stored, int autoPauseAfter) {
        if (autoPauseAfter <= 0) return false;
        return (leading > 0 && stored + leading >= autoPauseAfter) || longestAfterReset >= autoPauseAfter;
    }
}

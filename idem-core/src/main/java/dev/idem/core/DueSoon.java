package dev.idem.core;

import java.time.Duration;
import java.time.Instant;

/**
 * What "due soon" means between the writers of deliveries and the dispatchers that claim them.
 *
 * <p>A dispatcher claims first attempts {@link #LOOKAHEAD} before their instant and holds them until it, so a slow
 * claim makes nothing late. A writer whose delivery may be due before a dispatcher would otherwise look signals the
 * dispatchers when it commits ({@link #signals}); later deliveries are found by the dispatchers' timers.
 */
public final class DueSoon {
    /** How long before its instant a dispatcher claims a first attempt and holds it. */
    public static final Duration LOOKAHEAD = Duration.ofSeconds(1);

    /**
     * Twice {@link #LOOKAHEAD}: the dispatchers' timers were set before the write, possibly a poll interval away (half
     * a second by default), so a delivery due within this is signalled and claimed a whole look-ahead before its
     * instant; a later one enters the look-ahead more than a look-ahead from now, after the next timer has read it.
     */
    private static final Duration SIGNAL_WITHIN = LOOKAHEAD.multipliedBy(2);

    private DueSoon() {}

    /** Whether a delivery written at {@code now} and due at {@code due} signals the dispatchers at commit. */
    public static boolean signals(Instant due, Instant now) {
        return due.isBefore(now.plus(SIGNAL_WITHIN));
    }
}

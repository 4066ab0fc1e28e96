package dev.idem.receiver;

import java.time.Duration;
import java.util.Objects;

/**
 * How long a processed key is remembered. It must cover the sender's retry horizon (how long after the
 * first attempt a redelivery can still arrive): a key pruned earlier lets a late redelivery run the handler a
 * second time. Such a window is refused when it is configured, not discovered in production.
 */
public final class DedupWindow {
    /** Idem retries a delivery for {@code retry.max_age}, 24 h by default. */
    public static final Duration IDEM_DEFAULT_RETRY_HORIZON = Duration.ofHours(24);
    /** Three days: covers Idem's default 24 h, Svix's ~28 h ladder and Stripe's three days of retries. */
    public static final Duration DEFAULT_WINDOW = Duration.ofDays(3);

    private final Duration window;
    private final Duration senderRetryHorizon;

    private DedupWindow(Duration window, Duration senderRetryHorizon) {
        this.window = window;
        this.senderRetryHorizon = senderRetryHorizon;
    }

    /** Three days against Idem's default 24 h horizon. */
    public static DedupWindow defaults() {
        return of(DEFAULT_WINDOW, IDEM_DEFAULT_RETRY_HORIZON);
    }

    /**
     * @param window how long processed keys are kept
     * @param senderRetryHorizon the longest time after a first attempt that the sender may still redeliver
     * @throws IllegalArgumentException when {@code window} is shorter than {@code senderRetryHorizon}
     */
    public static DedupWindow of(Duration window, Duration senderRetryHorizon) {
        Objects.requireNonNull(window, "window");
        Objects.requireNonNull(senderRetryHorizon, "senderRetryHorizon");
        if (window.isNegative() || window.isZero()) throw new IllegalArgumentException("dedup window must be positive");
        if (window.compareTo(senderRetryHorizon) < 0) {
            throw new IllegalArgumentException("dedup window " + human(window) + " is shorter than the sender's retry"
                    + " horizon " + human(senderRetryHorizon) + ": a redelivery arriving after its key was pruned would"
                    + " run the handler a second time. Keep keys at least " + human(senderRetryHorizon)
                    + " (Idem retries for retry.max_age, 24h by default), or shorten the sender's retry.max_age.");
        }
        return new DedupWindow(window, senderRetryHorizon);
    }

    /** How long processed keys are kept. */
    public Duration window() {
        return window;
    }

    /** The sender retry horizon this window was checked against. */
    public Duration senderRetryHorizon() {
        return senderRetryHorizon;
    }

    private static String human(Duration d) {
        if (d.toSeconds() % 86400 == 0 && d.toDays() > 1) return d.toDays() + "d";
        if (d.toSeconds() % 3600 == 0) return d.toHours() + "h";
        if (d.toSeconds() % 60 == 0) return d.toMinutes() + "m";
        return d.toSeconds() + "s";
    }

    @Override
    public String toString() {
        return "DedupWindow[" + human(window) + " >= sender retry horizon " + human(senderRetryHorizon) + "]";
    }
}

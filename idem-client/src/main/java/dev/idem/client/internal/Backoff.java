package dev.idem.client.internal;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * Exponential backoff with "equal jitter": the n-th wait is {@code min(max, initial × 2^(n-1))}, of which a random
 * part up to one half is taken off. Full jitter (0 to the whole) would let a retry come at once after a 503; a
 * floor of half keeps each wait meaningful while still spreading many callers apart.
 */
public record Backoff(Duration initial, Duration max) {
    /** The wait before retry number {@code retry} (1 for the first retry). */
    public Duration delay(int retry, RandomGenerator random) {
        long initialMs = initial.toMillis();
        long maxMs = max.toMillis();
        int shift = Math.min(Math.max(retry - 1, 0), 30);
        long base = initialMs > (maxMs >> shift) ? maxMs : Math.min(maxMs, initialMs << shift);
        long half = base / 2;
        return Duration.ofMillis(base - (half == 0 ? 0 : random.nextLong(half + 1)));
    }
}

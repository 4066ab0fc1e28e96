package dev.idem.core;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * When a failed attempt is tried again: exponential backoff with full jitter between
 * {@code initialBackoff} and {@code maxBackoff}, until {@code maxAttempts} attempts or {@code maxAge}
 * since the occurrence was due. {@code maxAttempts == 1} means no retry.
 */
public record RetryPolicy(int maxAttempts, Duration initialBackoff, Duration maxBackoff, Duration maxAge) {
    /**
     * Growth per attempt. With the defaults the ceilings run 5 s, 40 s, 5 min, 43 min, 5.7 h, then 10 h:
     * close to the Svix ladder (5 s, 5 min, 30 min, 2 h, 5 h, 10 h) once jitter is drawn under them.
     */
    public static final int FACTOR = 8;

    public static final RetryPolicy DEFAULT =
            new RetryPolicy(8, Duration.ofSeconds(5), Duration.ofHours(10), Duration.ofHours(24));
    public static final int MAX_ATTEMPTS_LIMIT = 100;

    public RetryPolicy {
        Objects.requireNonNull(initialBackoff, "initialBackoff");
        Objects.requireNonNull(maxBackoff, "maxBackoff");
        Objects.requireNonNull(maxAge, "maxAge");
        if (maxAttempts < 1 || maxAttempts > MAX_ATTEMPTS_LIMIT)
            throw new IllegalArgumentException("retry.max_attempts must be between 1 and " + MAX_ATTEMPTS_LIMIT);
        if (initialBackoff.isNegative() || initialBackoff.isZero())
            throw new IllegalArgumentException("retry.initial_backoff must be positive");
        if (maxBackoff.compareTo(initialBackoff) < 0)
            throw new IllegalArgumentException("retry.max_backoff must be at least retry.initial_backoff");
        if (maxAge.isNegative() || maxAge.isZero())
            throw new IllegalArgumentException("retry.max_age must be positive");
        if (maxAge.compareTo(Duration.ofDays(30)) > 0)
            throw new IllegalArgumentException("retry.max_age must be at most 30d");
    }

    /** The backoff ceiling after failed attempt number {@code attempt} (1-based). */
    public Duration ceiling(int attempt) {
        long ms = initialBackoff.toMillis();
        long cap = maxBackoff.toMillis();
        for (int i = 1; i < attempt && ms < cap; i++) ms = ms > cap / FACTOR ? cap : ms * FACTOR;
        return Duration.ofMillis(Math.min(ms, cap));
    }

    /**
     * The delay before the next attempt after failed attempt {@code attempt}: a uniform draw in
     * [0, ceiling] (full jitter), or the receiver's {@code Retry-After} when given, clamped to
     * [initialBackoff, maxBackoff].
     */
    public Duration nextDelay(int attempt, Optional<Duration> retryAfter, RandomGenerator random) {
        if (retryAfter.isPresent()) {
            Duration ra = retryAfter.get();
            if (ra.compareTo(initialBackoff) < 0) return initialBackoff;
            return ra.compareTo(maxBackoff) > 0 ? maxBackoff : ra;
        }
        long ceiling = ceiling(attempt).toMillis();
        return Duration.ofMillis(ceiling <= 0 ? 0 : random.nextLong(ceiling + 1));
    }

    /** Whether another attempt is allowed after {@code attemptsMade}, at {@code age} since the occurrence was due. */
    public boolean allowsAnother(int attemptsMade, Duration ageAtNextAttempt) {
        return attemptsMade < maxAttempts && ageAtNextAttempt.compareTo(maxAge) <= 0;
    }
}

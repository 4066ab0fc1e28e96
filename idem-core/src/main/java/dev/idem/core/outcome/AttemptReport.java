package dev.idem.core.outcome;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * What one attempt on the wire produced, as the outcome rules need it.
 *
 * @param statusCode null when no response came
 * @param error null exactly when the attempt succeeded (a 2xx in time)
 * @param responseBody the start of the response body, or null
 * @param retryAfter the receiver's {@code Retry-After} on a 429 or 503, when it gave one
 */
public record AttemptReport(
        Instant startedAt,
        long durationMs,
        Integer statusCode,
        String error,
        String responseBody,
        Optional<Duration> retryAfter) {
    public AttemptReport {
        Objects.requireNonNull(startedAt, "startedAt");
        retryAfter = retryAfter == null ? Optional.empty() : retryAfter;
    }

    public boolean succeeded() {
        return error == null;
    }
}

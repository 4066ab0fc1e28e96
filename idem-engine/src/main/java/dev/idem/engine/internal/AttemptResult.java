package dev.idem.engine.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * What one HTTP attempt produced.
 *
 * @param statusCode null when no response came
 * @param error null exactly when the attempt succeeded (a 2xx in time)
 * @param responseBody the first 1 KiB of the response, or null
 * @param retryAfter the receiver's {@code Retry-After} on a 429 or 503, when it gave one
 * @param sent whether the request left this node (false when refused before connecting)
 */
public record AttemptResult(Instant startedAt, long durationMs, Integer statusCode, String error, String responseBody,
                            Optional<Duration> retryAfter, boolean sent) {
    public boolean succeeded() {
        return error == null;
    }

    static AttemptResult notSent(Instant startedAt, String error) {
        return new AttemptResult(startedAt, 0, null, error, null, Optional.empty(), false);
    }
}

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
 * @param congestion what the attempt says about its destination's health, for the adaptive limit
 */
public record AttemptResult(
        Instant startedAt,
        long durationMs,
        Integer statusCode,
        String error,
        String responseBody,
        Optional<Duration> retryAfter,
        boolean sent,
        Congestion congestion) {
    /** The destination's signal. */
    public enum Congestion {
        /** It answered (any status but 429 and a 5xx): it can take more at once. */
        ANSWER,
        /** It asked to slow down (429): neither more nor fewer at once; {@code Retry-After} spaces this delivery. */
        BACK_OFF,
        /**
         * It answered with a 5xx (503 included): the path is failing or overloaded, so fewer at once on this path, as
         * a drop. The host answered, so its connections are not cut: a failing path is the path's trouble alone.
         */
        SERVER_ERROR,
        /** A response timeout, a reset, a connection closed unanswered: fewer at once on this path, down to a single probe. */
        DROP,
        /**
         * No connection: refused, unreachable, a connect timeout, a name that does not resolve, a failed TLS handshake.
         * The host's trouble, not the path's: fewer connections at once to the host, for all its paths.
         */
        UNREACHABLE,
        /** Nothing reached it (refused endpoint, bad header, a request that could not be built). */
        NONE
    }

    public boolean succeeded() {
        return error == null;
    }

    /** What the outcome rules ({@link dev.idem.core.outcome.OutcomeDecider}) read of this result. */
    public dev.idem.core.outcome.AttemptReport report() {
        return new dev.idem.core.outcome.AttemptReport(
                startedAt, durationMs, statusCode, error, responseBody, retryAfter);
    }

    /**
     * This result with another start: the instant the request was signed at, so the recorded start is the instant its
     * {@code webhook-timestamp} and envelope were made from, and the request can be rebuilt exactly from it.
     */
    AttemptResult startedAt(Instant signedAt) {
        return new AttemptResult(signedAt, durationMs, statusCode, error, responseBody, retryAfter, sent, congestion);
    }

    static AttemptResult notSent(Instant startedAt, String error) {
        return new AttemptResult(startedAt, 0, null, error, null, Optional.empty(), false, Congestion.NONE);
    }
}

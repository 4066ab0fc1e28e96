package dev.idem.client.model;

import java.time.Duration;

/**
 * A schedule's retry policy. In a request, fields left null keep the API's defaults (8 attempts, 5 s, 1 h, 24 h);
 * in a response the durations are the API's short form ({@code "5s"}).
 *
 * @param maxAttempts attempts per delivery, 1 = no retry
 */
public record RetryPolicy(Integer maxAttempts, String initialBackoff, String maxBackoff, String maxAge) {
    /** A policy from Java durations (sent as ISO-8601, which the API accepts); any argument may be null. */
    public static RetryPolicy of(Integer maxAttempts, Duration initialBackoff, Duration maxBackoff, Duration maxAge) {
        return new RetryPolicy(maxAttempts, iso(initialBackoff), iso(maxBackoff), iso(maxAge));
    }

    private static String iso(Duration d) {
        return d == null ? null : d.toString();
    }
}

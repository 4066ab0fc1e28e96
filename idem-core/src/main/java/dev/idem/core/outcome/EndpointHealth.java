package dev.idem.core.outcome;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * How one endpoint's attempts have gone: the counts of a day-long window and of the one before it (so the success
 * rate covers the last 24 to 48 hours, never an empty moment after a reset), the last success, the last failure, and
 * since when every attempt has failed. Outcomes are applied in the order they were recorded ({@link #after}).
 *
 * @param windowStart when the current window began
 * @param failingSince the first failed attempt after the last success, or null while the last attempt succeeded (or
 *     none was made since the endpoint was created or enabled again)
 */
public record EndpointHealth(
        Instant windowStart,
        int attempts,
        int failures,
        int previousAttempts,
        int previousFailures,
        Instant lastSuccessAt,
        Instant failingSince,
        Instant lastFailureAt,
        String lastFailure) {
    /** The length of one counting window. */
    public static final Duration WINDOW = Duration.ofDays(1);
    /** The default {@code disable_after}: an endpoint failing every attempt this long is disabled. */
    public static final Duration DEFAULT_DISABLE_AFTER = Duration.ofDays(5);

    public EndpointHealth {
        Objects.requireNonNull(windowStart, "windowStart");
    }

    /** An endpoint with no attempt yet. */
    public static EndpointHealth none(Instant now) {
        return new EndpointHealth(now, 0, 0, 0, 0, null, null, null, null);
    }

    /** One attempt's result: when it started, whether it succeeded, and its error (null on success). */
    public record Result(Instant at, boolean succeeded, String error) {}

    /** This health after {@code results}, in order, seen at {@code now}. */
    public EndpointHealth after(List<Result> results, Instant now) {
        EndpointHealth h = rolled(now);
        int a = h.attempts;
        int f = h.failures;
        Instant success = h.lastSuccessAt;
        Instant since = h.failingSince;
        Instant failureAt = h.lastFailureAt;
        String failure = h.lastFailure;
        for (Result r : results) {
            a++;
            if (r.succeeded()) {
                success = r.at();
                since = null;
            } else {
                f++;
                if (since == null) since = r.at();
                failureAt = r.at();
                failure = r.error();
            }
        }
        return new EndpointHealth(
                h.windowStart, a, f, h.previousAttempts, h.previousFailures, success, since, failureAt, failure);
    }

    /** The windows as they stand at {@code now}: a window a day old becomes the previous one, two days old, none. */
    public EndpointHealth rolled(Instant now) {
        Duration age = Duration.between(windowStart, now);
        if (age.compareTo(WINDOW) < 0) return this;
        boolean keepPrevious = age.compareTo(WINDOW.multipliedBy(2)) < 0;
        return new EndpointHealth(
                now,
                0,
                0,
                keepPrevious ? attempts : 0,
                keepPrevious ? failures : 0,
                lastSuccessAt,
                failingSince,
                lastFailureAt,
                lastFailure);
    }

    /** Succeeded attempts over attempts in the last 24 to 48 hours at {@code now}, or null when there were none. */
    public Double successRate(Instant now) {
        EndpointHealth h = rolled(now);
        int all = h.attempts + h.previousAttempts;
        if (all == 0) return null;
        return (all - h.failures - h.previousFailures) / (double) all;
    }

    /**
     * Whether the endpoint is to be disabled at {@code now}: every attempt made to it for {@code disableAfter} has
     * failed (its first failure after its last success is at least that old).
     */
    public boolean failingFor(Duration disableAfter, Instant now) {
        return failingSince != null && !failingSince.plus(disableAfter).isAfter(now);
    }

    /** As it is once the endpoint is enabled again: its failures so far no longer count toward disabling it. */
    public EndpointHealth enabledAgain() {
        return new EndpointHealth(
                windowStart,
                attempts,
                failures,
                previousAttempts,
                previousFailures,
                lastSuccessAt,
                null,
                lastFailureAt,
                lastFailure);
    }
}

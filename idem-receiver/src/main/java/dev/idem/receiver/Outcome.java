package dev.idem.receiver;

import java.time.Duration;
import java.util.Objects;

/**
 * What the inbox decided for one delivery.
 *
 * @param status what happened
 * @param key the dedup key
 * @param result what the handler returned (PROCESSED), or what the first delivery's handler returned
 *     (DUPLICATE); null when the handler returned null
 * @param retryAfter for IN_PROGRESS, how long until the other worker's claim expires; else zero
 */
public record Outcome(Status status, String key, String result, Duration retryAfter) {

    /** The three answers an inbox gives. */
    public enum Status {
        /** The handler ran in this call and its work is committed. */
        PROCESSED,
        /** The key was already processed; the handler was not called. Answer 2xx. */
        DUPLICATE,
        /** Another worker holds an unexpired claim on the key; the handler was not called. Answer non-2xx. */
        IN_PROGRESS
    }

    public Outcome {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(key, "key");
        retryAfter = retryAfter == null ? Duration.ZERO : retryAfter;
    }

    static Outcome processed(String key, String result) {
        return new Outcome(Status.PROCESSED, key, result, Duration.ZERO);
    }

    static Outcome duplicate(String key, String result) {
        return new Outcome(Status.DUPLICATE, key, result, Duration.ZERO);
    }

    static Outcome inProgress(String key, Duration retryAfter) {
        return new Outcome(Status.IN_PROGRESS, key, null, retryAfter);
    }
}

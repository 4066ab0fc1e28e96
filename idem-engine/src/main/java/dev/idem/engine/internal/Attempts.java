package dev.idem.engine.internal;

import dev.idem.core.store.DeliveryQueue.Claim;
import dev.idem.engine.internal.AttemptResult.Congestion;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * The two steps of an attempt that go outside the node: sending a claimed delivery, and recording what came of it.
 * The dispatcher's {@link AttemptLifecycle} runs them in turn; {@link DeliveryAttempt} is the real one.
 */
public interface Attempts {
    /**
     * Signs and sends the delivery; completes, without waiting on a thread, when the exchange ended. Whatever goes
     * wrong with the delivery itself is an {@link Sent.Ending#ANSWERED} result to record, never an exceptional
     * completion.
     */
    CompletableFuture<Sent> send(Claim claim, Duration timeout);

    /** Decides the outcome of {@code result} and records it; completes once it is written, or given up on. */
    CompletableFuture<Void> record(Claim claim, AttemptResult result);

    /** Whether {@link #claimed} wants to hear of claims (tracing is on). */
    default boolean tracesClaims() {
        return false;
    }

    /** Told of each claim that took deliveries, begun at {@code startedAt}, when {@link #tracesClaims()}. */
    default void claimed(java.util.List<Claim> claims, java.time.Instant startedAt) {}

    /** How an exchange ended. */
    record Sent(Ending ending, AttemptResult result) {
        public enum Ending {
            /** With a result to record: an answer, a failure, or a request that could not be made. */
            ANSWERED,
            /** Nothing was attempted (the store was away while it was being built): the claim goes back to the queue. */
            NOT_ATTEMPTED,
            /** Abandoned at shutdown: nothing to record, the lease is released with the node's others. */
            ABORTED
        }

        public static Sent answered(AttemptResult result) {
            return new Sent(Ending.ANSWERED, result);
        }

        public static Sent notAttempted() {
            return new Sent(Ending.NOT_ATTEMPTED, null);
        }

        public static Sent aborted() {
            return new Sent(Ending.ABORTED, null);
        }

        /** What the exchange says about its destination. */
        Congestion congestion() {
            return result == null ? Congestion.NONE : result.congestion();
        }
    }
}

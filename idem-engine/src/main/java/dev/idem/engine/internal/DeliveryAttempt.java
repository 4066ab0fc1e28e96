package dev.idem.engine.internal;

import dev.idem.core.Delivery;
import dev.idem.core.outcome.OutcomeDecider;
import dev.idem.core.store.DeliveryQueue.Claim;
import dev.idem.core.store.DeliveryQueue.Outcome;
import dev.idem.core.store.StoreException;
import dev.idem.engine.internal.AttemptResult.Congestion;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One attempt of a claimed delivery: sign, send without waiting, and from the sender's callback decide the outcome
 * and hand it to the recorder. Whatever goes wrong inside (a request that cannot be built, an endpoint the client
 * rejects, any exception) is a recorded failed attempt that counts against the retry policy and auto-pause: an
 * attempt never leaves its delivery {@code delivering} with nothing recorded. The one exception is the store being
 * away while the signing secret is read: nothing was attempted, and the claim goes back to the queue.
 */
public final class DeliveryAttempt implements Dispatcher.AttemptStarter {
    private static final Logger log = LoggerFactory.getLogger(DeliveryAttempt.class);

    private final SecretCache secrets;
    private final RequestBuilder builder;
    private final HttpSender sender;
    private final OutcomeDecider decider;
    private final Recorder recorder;
    private final EngineMetrics metrics;
    private final Clock clock;

    public DeliveryAttempt(
            SecretCache secrets,
            RequestBuilder builder,
            HttpSender sender,
            OutcomeDecider decider,
            Recorder recorder,
            EngineMetrics metrics,
            Clock clock) {
        this.secrets = secrets;
        this.builder = builder;
        this.sender = sender;
        this.decider = decider;
        this.recorder = recorder;
        this.metrics = metrics;
        this.clock = clock;
    }

    @Override
    public void start(Claim claim, Duration timeout, Dispatcher.Listener listener) {
        LogIds.set(claim.delivery());
        try {
            begin(claim, timeout, listener);
        } finally {
            LogIds.clear();
        }
    }

    private void begin(Claim claim, Duration timeout, Dispatcher.Listener listener) {
        Delivery d = claim.delivery();
        Optional<java.util.function.Function<Instant, java.util.List<dev.idem.wire.SigningSecret>>> signing;
        try {
            signing = secrets.forDelivery(d);
        } catch (StoreException e) {
            log.warn(
                    "delivery {} not attempted: its signing secret could not be read ({}); it goes back to the queue",
                    d.id(),
                    e.toString());
            listener.notAttempted();
            return;
        }
        Instant now = clock.instant();
        try {
            if (signing.isEmpty()) {
                finish(
                        claim,
                        AttemptResult.notSent(
                                now,
                                "no signing secret exists for "
                                        + (d.ofMessage() ? "endpoint " + d.endpointId() + " of " : "")
                                        + "project " + d.tenant().projectId() + " ("
                                        + d.tenant().mode().wireName()
                                        + " mode): nothing was sent; retried until one exists"),
                        listener);
                return;
            }
            DeliveryRequest request = builder.build(
                    d, claim.schedule(), d.attemptCount(), signing.get().apply(now), now);
            metrics.lag(Duration.between(Dispatcher.dueAt(d), clock.instant()));
            sender.send(request, timeout, new HttpSender.Callback() {
                @Override
                public void completed(AttemptResult result) {
                    LogIds.set(claim.delivery());
                    try {
                        // recorded as started when signed (the sender reads its clock a moment later): GET
                        // /v1/deliveries/{id} rebuilds the request from this instant, timestamp and signature alike
                        finish(claim, result.startedAt(now), listener);
                    } finally {
                        LogIds.clear();
                    }
                }

                @Override
                public void aborted() {
                    listener.answered(Congestion.NONE);
                    listener.finished();
                }
            });
        } catch (RuntimeException e) {
            log.warn(
                    "attempt {} of delivery {} failed inside the engine; recorded as a failed attempt",
                    d.attemptCount(),
                    d.id(),
                    e);
            finish(claim, AttemptResult.notSent(now, "the request could not be built or sent: " + e), listener);
        }
    }

    /** Records the attempt's outcome; the listener hears of the answer at once and of the outcome once it is written. */
    private void finish(Claim claim, AttemptResult result, Dispatcher.Listener listener) {
        listener.answered(result.congestion());
        Outcome outcome;
        try {
            metrics.attempt(EngineMetrics.resultOf(result), result.durationMs());
            outcome = decider.decide(
                    claim.delivery(), claim.schedule(), claim.delivery().attemptCount(), result.report());
        } catch (RuntimeException | Error e) {
            log.error(
                    "the outcome of delivery {} attempt {} could not be decided; its lease will expire and it goes out again",
                    claim.delivery().id(),
                    claim.delivery().attemptCount(),
                    e);
            listener.finished();
            return;
        }
        logOutcome(claim.delivery(), outcome);
        recorder.submit(outcome, listener::finished);
    }

    /**
     * Every outcome at debug level, where {@link LogIds} are set so JSON lines carry the ids as fields. The WARN for
     * a delivery that went dead is the recorder's, once the store has applied the outcome (a stale one is no news).
     */
    static void logOutcome(Delivery d, Outcome outcome) {
        if (log.isDebugEnabled())
            log.debug(
                    "delivery {} attempt {}: {}, now {}",
                    d.id(),
                    outcome.attempt().number(),
                    outcome.lastError() == null ? "HTTP " + outcome.attempt().statusCode() : outcome.lastError(),
                    outcome.newStatus().wireName());
    }
}

package dev.idem.engine.internal;

import dev.idem.core.Delivery;
import dev.idem.core.outcome.OutcomeDecider;
import dev.idem.core.store.DeliveryQueue.Claim;
import dev.idem.core.store.DeliveryQueue.Outcome;
import dev.idem.core.store.StoreException;
import dev.idem.wire.SigningSecret;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The attempts of claimed deliveries: {@link #send} signs and sends without waiting, {@link #record} decides the
 * outcome and hands it to the recorder. Whatever goes wrong inside (a request that cannot be built, an endpoint the
 * client rejects, any exception) is a recorded failed attempt that counts against the retry policy and auto-pause: an
 * attempt never leaves its delivery {@code delivering} with nothing recorded. The one exception is the store being
 * away while the signing secret is read: nothing was attempted, and the claim goes back to the queue.
 */
public final class DeliveryAttempt implements Attempts {
    private static final Logger log = LoggerFactory.getLogger(DeliveryAttempt.class);

    private final SecretCache secrets;
    private final RequestBuilder builder;
    private final HttpSender sender;
    private final OutcomeDecider decider;
    private final Recorder recorder;
    private final EngineMetrics metrics;
    private final Clock clock;
    private final AttemptTracing tracing;

    public DeliveryAttempt(
            SecretCache secrets,
            RequestBuilder builder,
            HttpSender sender,
            OutcomeDecider decider,
            Recorder recorder,
            EngineMetrics metrics,
            Clock clock,
            AttemptTracing tracing) {
        this.secrets = secrets;
        this.builder = builder;
        this.sender = sender;
        this.decider = decider;
        this.recorder = recorder;
        this.metrics = metrics;
        this.clock = clock;
        this.tracing = tracing;
    }

    @Override
    public boolean tracesClaims() {
        return tracing.on();
    }

    @Override
    public void claimed(List<Claim> claims, Instant startedAt) {
        tracing.claimed(claims, startedAt);
    }

    @Override
    public CompletableFuture<Sent> send(Claim claim, Duration timeout) {
        LogIds.set(claim.delivery());
        try {
            return sign(claim, timeout);
        } finally {
            LogIds.clear();
        }
    }

    private CompletableFuture<Sent> sign(Claim claim, Duration timeout) {
        Delivery d = claim.delivery();
        Optional<Function<Instant, List<SigningSecret>>> signing;
        try {
            signing = secrets.forDelivery(d);
        } catch (StoreException e) {
            log.warn(
                    "delivery {} not attempted: its signing secret could not be read ({}); it goes back to the queue",
                    d.id(),
                    e.toString());
            return CompletableFuture.completedFuture(Sent.notAttempted());
        }
        Instant now = clock.instant();
        if (signing.isEmpty())
            return answered(AttemptResult.notSent(
                    now,
                    "no signing secret exists for "
                            + (d.ofMessage() ? "endpoint " + d.endpointId() + " of " : "")
                            + "project " + d.tenant().projectId() + " ("
                            + d.tenant().mode().wireName()
                            + " mode): nothing was sent; retried until one exists"));
        CompletableFuture<Sent> sent = new CompletableFuture<>();
        AttemptSpan span = null;
        try {
            DeliveryRequest request = builder.build(
                    d, claim.schedule(), d.attemptCount(), signing.get().apply(now), now);
            span = tracing.start(d, claim.schedule(), request.endpoint(), d.attemptCount());
            // the attempt's own context goes out, so the receiver's handler is its child
            if (span != null) request = AttemptTracing.withContextOf(span, request);
            metrics.lag(Duration.between(Held.dueAt(d), clock.instant()));
            AttemptSpan traced = span;
            sender.send(
                    request,
                    timeout,
                    new HttpSender.Callback() {
                        @Override
                        public void completed(AttemptResult result) {
                            if (traced != null) traced.end(result);
                            // recorded as started when signed (the sender reads its clock a moment later): GET
                            // /v1/deliveries/{id} rebuilds the request from this instant, timestamp and signature alike
                            sent.complete(Sent.answered(result.startedAt(now)));
                        }

                        @Override
                        public void aborted() {
                            if (traced != null) traced.aborted();
                            sent.complete(Sent.aborted());
                        }
                    },
                    span);
        } catch (RuntimeException e) {
            log.warn(
                    "attempt {} of delivery {} failed inside the engine; recorded as a failed attempt",
                    d.attemptCount(),
                    d.id(),
                    e);
            AttemptResult failed = AttemptResult.notSent(now, "the request could not be built or sent: " + e);
            if (span != null && !sent.isDone()) span.end(failed);
            sent.complete(Sent.answered(failed));
        }
        return sent;
    }

    private static CompletableFuture<Sent> answered(AttemptResult result) {
        return CompletableFuture.completedFuture(Sent.answered(result));
    }

    @Override
    public CompletableFuture<Void> record(Claim claim, AttemptResult result) {
        Delivery d = claim.delivery();
        LogIds.set(d);
        Outcome outcome;
        try {
            metrics.attempt(EngineMetrics.resultOf(result), result.durationMs());
            if (result.succeeded()) metrics.endToEnd(Duration.between(d.scheduledFor(), clock.instant()));
            outcome = decider.decide(d, claim.schedule(), d.attemptCount(), result.report());
            logOutcome(d, outcome);
        } catch (RuntimeException | Error e) {
            log.error(
                    "the outcome of delivery {} attempt {} could not be decided; its lease will expire and it goes out again",
                    d.id(),
                    d.attemptCount(),
                    e);
            return CompletableFuture.completedFuture(null);
        } finally {
            LogIds.clear();
        }
        CompletableFuture<Void> written = new CompletableFuture<>();
        recorder.submit(outcome, () -> written.complete(null));
        return written;
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

package dev.idem.engine.internal;

import dev.idem.core.Delivery;
import dev.idem.core.Schedule;
import dev.idem.core.SigningSecrets;
import dev.idem.core.store.DeliveryQueue.Claim;
import dev.idem.core.store.DeliveryQueue.Outcome;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One attempt of a claimed delivery: sign, send, decide, hand the outcome to the recorder. */
public final class DeliveryAttempt implements Dispatcher.AttemptRunner {
    private static final Logger log = LoggerFactory.getLogger(DeliveryAttempt.class);
    private final SecretCache secrets;
    private final RequestBuilder builder;
    private final HttpSender sender;
    private final OutcomeDecider decider;
    private final Recorder recorder;
    private final EngineMetrics metrics;
    private final Clock clock;

    public DeliveryAttempt(SecretCache secrets, RequestBuilder builder, HttpSender sender, OutcomeDecider decider,
                           Recorder recorder, EngineMetrics metrics, Clock clock) {
        this.secrets = secrets;
        this.builder = builder;
        this.sender = sender;
        this.decider = decider;
        this.recorder = recorder;
        this.metrics = metrics;
        this.clock = clock;
    }

    @Override
    public boolean run(Claim claim, Duration timeout, Runnable recorded) throws InterruptedException {
        Delivery d = claim.delivery();
        Schedule s = claim.schedule();
        int attempt = d.attemptCount();
        Optional<SigningSecrets> tenantSecrets = secrets.get(d.tenant());
        AttemptResult result;
        if (tenantSecrets.isEmpty()) {
            result = AttemptResult.notSent(clock.instant(), "no signing secret exists for project " + d.tenant().projectId()
                    + " (" + d.tenant().mode().wireName() + " mode): nothing was sent; retried until one exists");
        } else {
            Instant now = clock.instant();
            DeliveryRequest request = builder.build(d, s, attempt, tenantSecrets.get().activeAt(now), now);
            metrics.lag(Duration.between(Dispatcher.dueAt(d), clock.instant()));
            result = sender.send(request, timeout);
        }
        metrics.attempt(EngineMetrics.resultOf(result), result.durationMs());
        Outcome outcome = decider.decide(d, s, attempt, result);
        logOutcome(d, outcome);
        recorder.submit(outcome, recorded);
        return true;
    }

    /**
     * Every outcome at debug level, where {@link LogIds} are set so JSON lines carry the ids as fields. The WARN for
     * a delivery that went dead is the recorder's, once the store has applied the outcome (a stale one is no news).
     */
    static void logOutcome(Delivery d, Outcome outcome) {
        if (log.isDebugEnabled())
            log.debug("delivery {} attempt {}: {}, now {}", d.id(), outcome.attempt().number(),
                    outcome.lastError() == null ? "HTTP " + outcome.attempt().statusCode() : outcome.lastError(), outcome.newStatus().wireName());
    }
}

package dev.idem.core.outcome;

import dev.idem.core.Attempt;
import dev.idem.core.Delivery;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.IdGenerator;
import dev.idem.core.RetryPolicy;
import dev.idem.core.Schedule;
import dev.idem.core.store.DeliveryQueue.Outcome;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * Turns an attempt's result into the delivery's next state (docs/wire.md, "Outcomes, retries, dead letters"): a 2xx succeeds; anything else
 * is retried after the policy's backoff (or the receiver's {@code Retry-After}, clamped) while the policy allows
 * another attempt by count and by age since the occurrence was due, else the delivery is dead.
 *
 * <p>A replay is one more attempt: a replayed delivery that fails is dead again, whether it was dead or succeeded
 * before.
 */
public final class OutcomeDecider {
    private final IdGenerator ids;
    private final RandomGenerator random;
    private final Clock clock;

    /**
     * @param ids makes the attempts' ids
     * @param random draws the backoff's jitter
     * @param clock the instant a retry's delay counts from
     */
    public OutcomeDecider(IdGenerator ids, RandomGenerator random, Clock clock) {
        this.ids = Objects.requireNonNull(ids, "ids");
        this.random = Objects.requireNonNull(random, "random");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** The outcome of attempt {@code attemptNumber} of {@code delivery} (of {@code schedule}) that produced {@code r}. */
    public Outcome decide(Delivery delivery, Schedule schedule, int attemptNumber, AttemptReport r) {
        Attempt attempt = new Attempt(
                ids.next("att"),
                delivery.id(),
                attemptNumber,
                r.startedAt(),
                r.durationMs(),
                r.statusCode(),
                r.error(),
                r.responseBody());
        if (r.succeeded()) return new Outcome(delivery.id(), attempt, DeliveryStatus.SUCCEEDED, null, null);
        if (delivery.replayed()) return new Outcome(delivery.id(), attempt, DeliveryStatus.DEAD, null, r.error());
        RetryPolicy policy = schedule.definition().retry();
        Instant now = clock.instant();
        Duration delay = policy.nextDelay(attemptNumber, r.retryAfter(), random);
        Instant next = now.plus(delay);
        if (policy.allowsAnother(attemptNumber, Duration.between(delivery.scheduledFor(), next)))
            return new Outcome(delivery.id(), attempt, DeliveryStatus.RETRYING, next, r.error());
        return new Outcome(delivery.id(), attempt, DeliveryStatus.DEAD, null, r.error());
    }
}

package dev.idem.engine.internal;

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
import java.util.random.RandomGenerator;

/**
 * Turns an attempt's result into the delivery's next state (SPEC section 3): a 2xx succeeds; anything else is
 * retried after the policy's backoff (or the receiver's {@code Retry-After}, clamped) while the policy allows
 * another attempt by count and by age since the occurrence was due, else the delivery is dead.
 *
 * <p>A replay is one more attempt (SPEC section 2): a replayed delivery that fails is dead again, whether it was
 * dead or succeeded before.
 */
public final class OutcomeDecider {
    private final IdGenerator ids;
    private final RandomGenerator random;
    private final Clock clock;

    public OutcomeDecider(IdGenerator ids, RandomGenerator random, Clock clock) {
        this.ids = ids;
        this.random = random;
        this.clock = clock;
    }

    public Outcome decide(Delivery delivery, Schedule schedule, int attemptNumber, AttemptResult r) {
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

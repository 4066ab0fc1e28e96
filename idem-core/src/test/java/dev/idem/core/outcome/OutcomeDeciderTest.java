package dev.idem.core.outcome;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Delivery;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.IdGenerator;
import dev.idem.core.RetryPolicy;
import dev.idem.core.Schedule;
import dev.idem.core.store.DeliveryQueue.Outcome;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class OutcomeDeciderTest {
    private static final Instant DUE = Instant.parse("2026-03-10T17:00:00Z");
    private Clock clock = Clock.fixed(DUE.plusSeconds(1), ZoneOffset.UTC);
    private OutcomeDecider decider = decider();
    private final RetryPolicy policy =
            new RetryPolicy(3, Duration.ofSeconds(5), Duration.ofMinutes(10), Duration.ofHours(1));
    private final Schedule schedule = Fixtures.schedule("sch_1", Fixtures.once(DUE, policy, 5), DUE);

    private OutcomeDecider decider() {
        return new OutcomeDecider(new IdGenerator(clock, new SplittableRandom(3)), new SplittableRandom(4), clock);
    }

    private AttemptReport failure(int status, Duration retryAfter) {
        return new AttemptReport(
                clock.instant(), 12, status, "HTTP " + status, "busy", Optional.ofNullable(retryAfter));
    }

    @Test
    void a2xxSucceedsAndKeepsTheAttempt() {
        Delivery d = Fixtures.claimed(schedule, "dlv_1", 1);
        Outcome o = decider.decide(
                d, schedule, 1, new AttemptReport(clock.instant(), 7, 204, null, null, Optional.empty()));
        assertThat(o.newStatus()).isEqualTo(DeliveryStatus.SUCCEEDED);
        assertThat(o.attempt().number()).isEqualTo(1);
        assertThat(o.attempt().statusCode()).isEqualTo(204);
        assertThat(o.attempt().id()).startsWith("att_");
        assertThat(o.attempt().deliveryId()).isEqualTo("dlv_1");
    }

    @Test
    void aFailureIsRetriedWithinTheJitteredCeiling() {
        for (int i = 0; i < 50; i++) {
            Outcome o = decider.decide(Fixtures.claimed(schedule, "dlv_1", 1), schedule, 1, failure(500, null));
            assertThat(o.newStatus()).isEqualTo(DeliveryStatus.RETRYING);
            assertThat(o.nextAttemptAt())
                    .isBetween(clock.instant(), clock.instant().plus(policy.ceiling(1)));
            assertThat(o.lastError()).isEqualTo("HTTP 500");
            assertThat(o.attempt().responseBody()).isEqualTo("busy");
        }
    }

    @Test
    void retryAfterIsHonouredWithinThePolicyBounds() {
        Delivery d = Fixtures.claimed(schedule, "dlv_1", 1);
        assertThat(decider.decide(d, schedule, 1, failure(429, Duration.ofSeconds(90)))
                        .nextAttemptAt())
                .isEqualTo(clock.instant().plusSeconds(90));
        assertThat(decider.decide(d, schedule, 1, failure(503, Duration.ofSeconds(1)))
                        .nextAttemptAt())
                .isEqualTo(clock.instant().plusSeconds(5));
        assertThat(decider.decide(d, schedule, 1, failure(503, Duration.ofDays(2)))
                        .nextAttemptAt())
                .isEqualTo(clock.instant().plus(Duration.ofMinutes(10)));
    }

    @Test
    void theLastAllowedAttemptEndsDeadWithItsError() {
        Outcome o = decider.decide(Fixtures.claimed(schedule, "dlv_1", 3), schedule, 3, failure(500, null));
        assertThat(o.newStatus()).isEqualTo(DeliveryStatus.DEAD);
        assertThat(o.nextAttemptAt()).isNull();
        assertThat(o.lastError()).isEqualTo("HTTP 500");
    }

    @Test
    void aFailedReplayIsDeadEvenWithAttemptsLeft() {
        Delivery d = Fixtures.claimed(schedule, "dlv_1", 2);
        Delivery replayed = new Delivery(
                d.id(),
                d.tenant(),
                d.scheduleId(),
                d.scheduledFor(),
                d.sequence(),
                d.status(),
                d.attemptCount(),
                d.nextAttemptAt(),
                d.idempotencyKey(),
                d.leaseOwner(),
                d.leaseExpiresAt(),
                d.lastError(),
                d.createdAt(),
                d.updatedAt(),
                true);
        assertThat(decider.decide(replayed, schedule, 2, failure(500, null)).newStatus())
                .isEqualTo(DeliveryStatus.DEAD);
        assertThat(decider.decide(d, schedule, 2, failure(500, null)).newStatus())
                .isEqualTo(DeliveryStatus.RETRYING);
    }

    @Test
    void aRetryPastMaxAgeIsNotScheduled() {
        clock = Clock.fixed(DUE.plus(Duration.ofHours(1)), ZoneOffset.UTC);
        decider = decider();
        Outcome o = decider.decide(
                Fixtures.claimed(schedule, "dlv_1", 1), schedule, 1, failure(500, Duration.ofSeconds(30)));
        assertThat(o.newStatus()).isEqualTo(DeliveryStatus.DEAD);
    }
}

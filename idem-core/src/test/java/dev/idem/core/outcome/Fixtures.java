package dev.idem.core.outcome;

import dev.idem.core.Attempt;
import dev.idem.core.Delivery;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.Mode;
import dev.idem.core.Origin;
import dev.idem.core.RetryPolicy;
import dev.idem.core.Schedule;
import dev.idem.core.ScheduleDefinition;
import dev.idem.core.ScheduleStatus;
import dev.idem.core.Tenant;
import dev.idem.core.Timing;
import dev.idem.core.store.DeliveryQueue.Outcome;
import java.time.Duration;
import java.time.Instant;

/** Schedules, deliveries and outcomes for the outcome rules' tests. */
final class Fixtures {
    static final Tenant TENANT = new Tenant("prj_test", Mode.TEST);

    private Fixtures() {}

    /** A one-shot at {@code fireAt} with {@code retry} and {@code autoPauseAfter}. */
    static ScheduleDefinition once(Instant fireAt, RetryPolicy retry, int autoPauseAfter) {
        return ScheduleDefinition.builder("https://example.com/hook", new Timing.Once(fireAt))
                .retry(retry)
                .timeout(Duration.ofSeconds(5))
                .autoPauseAfter(autoPauseAfter)
                .build();
    }

    static Schedule schedule(String id, ScheduleDefinition def, Instant now) {
        return new Schedule(
                id, TENANT, ScheduleStatus.ACTIVE, def, def.timing().first(now).orElse(null), 0, null, 0, now, now);
    }

    /** {@code s} as the delivery of an alert ({@code origin = alert}). */
    static Schedule alertSchedule(String id, ScheduleDefinition def, Instant now) {
        return new Schedule(id, TENANT, ScheduleStatus.ACTIVE, def, now, 0, null, 0, now, now, Origin.alert(), null);
    }

    /** The delivery of {@code s}'s first occurrence, claimed for attempt {@code attempt}. */
    static Delivery claimed(Schedule s, String id, int attempt) {
        Instant due = s.definition().timing().first(s.createdAt()).orElseThrow();
        Delivery d = Delivery.scheduled(id, s, due, 1, due);
        return new Delivery(
                d.id(),
                d.tenant(),
                d.scheduleId(),
                d.scheduledFor(),
                d.sequence(),
                DeliveryStatus.DELIVERING,
                attempt,
                d.nextAttemptAt(),
                d.idempotencyKey(),
                "node-a",
                due.plusSeconds(90),
                null,
                d.createdAt(),
                d.updatedAt());
    }

    static Outcome succeeded(String deliveryId, int attempt, Instant at) {
        return new Outcome(
                deliveryId, attempt(deliveryId, attempt, at, 200, null), DeliveryStatus.SUCCEEDED, null, null);
    }

    static Outcome retrying(String deliveryId, int attempt, Instant at) {
        return new Outcome(
                deliveryId,
                attempt(deliveryId, attempt, at, 500, "HTTP 500"),
                DeliveryStatus.RETRYING,
                at.plusSeconds(5),
                "HTTP 500");
    }

    static Outcome dead(String deliveryId, int attempt, Instant at) {
        return new Outcome(
                deliveryId, attempt(deliveryId, attempt, at, 500, "HTTP 500"), DeliveryStatus.DEAD, null, "HTTP 500");
    }

    private static Attempt attempt(String deliveryId, int number, Instant at, int status, String error) {
        return new Attempt("att_" + deliveryId + "_" + number, deliveryId, number, at, 3, status, error, null);
    }
}

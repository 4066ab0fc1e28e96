package dev.idem.engine.testing;

import dev.idem.core.Delivery;
import dev.idem.core.HeaderProfile;
import dev.idem.core.Mode;
import dev.idem.core.RetryPolicy;
import dev.idem.core.Schedule;
import dev.idem.core.ScheduleDefinition;
import dev.idem.core.ScheduleStatus;
import dev.idem.core.Tenant;
import dev.idem.core.Timing;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/** Schedule definitions and in-memory domain objects for tests; change one field with the with-style helpers. */
public final class Defs {
    public static final Tenant TENANT = new Tenant("prj_test", Mode.TEST);

    private Defs() {}

    public static ScheduleDefinition once(String endpoint, Instant fireAt) {
        return ScheduleDefinition.builder(endpoint, new Timing.Once(fireAt))
                .timeout(Duration.ofSeconds(5))
                .autoPauseAfter(5)
                .build();
    }

    /** Hourly from {@code start} (its first occurrence) in {@code zone}. */
    public static ScheduleDefinition hourly(String endpoint, Instant start, String zone) {
        java.time.ZoneId z = java.time.ZoneId.of(zone);
        Timing t = new Timing.Recurring(
                dev.idem.core.recurrence.RecurrenceSpec.rrule(
                        "FREQ=HOURLY", z, java.time.LocalDateTime.ofInstant(start, z)),
                dev.idem.core.CatchUp.LATEST);
        return ScheduleDefinition.builder(endpoint, t)
                .timeout(Duration.ofSeconds(5))
                .autoPauseAfter(5)
                .build();
    }

    public static ScheduleDefinition with(
            ScheduleDefinition d,
            String payloadJson,
            String body,
            String contentType,
            Map<String, String> headers,
            String eventType,
            String idempotencyKey) {
        return ScheduleDefinition.builder(d.endpoint(), d.timing())
                .payloadJson(payloadJson)
                .body(body)
                .contentType(contentType)
                .headers(headers)
                .eventType(eventType)
                .idempotencyKey(idempotencyKey)
                .dedupId(d.dedupId())
                .retry(d.retry())
                .timeout(d.timeout())
                .autoPauseAfter(d.autoPauseAfter())
                .headerProfile(d.headerProfile())
                .metadataJson(d.metadataJson())
                .build();
    }

    public static ScheduleDefinition retry(
            ScheduleDefinition d, RetryPolicy retry, Duration timeout, int autoPauseAfter) {
        return ScheduleDefinition.builder(d.endpoint(), d.timing())
                .payloadJson(d.payloadJson())
                .body(d.body())
                .contentType(d.contentType())
                .headers(d.headers())
                .eventType(d.eventType())
                .idempotencyKey(d.idempotencyKey())
                .dedupId(d.dedupId())
                .retry(retry)
                .timeout(timeout)
                .autoPauseAfter(autoPauseAfter)
                .headerProfile(d.headerProfile())
                .metadataJson(d.metadataJson())
                .build();
    }

    public static ScheduleDefinition profile(ScheduleDefinition d, HeaderProfile p) {
        return ScheduleDefinition.builder(d.endpoint(), d.timing())
                .payloadJson(d.payloadJson())
                .body(d.body())
                .contentType(d.contentType())
                .headers(d.headers())
                .eventType(d.eventType())
                .idempotencyKey(d.idempotencyKey())
                .dedupId(d.dedupId())
                .retry(d.retry())
                .timeout(d.timeout())
                .autoPauseAfter(d.autoPauseAfter())
                .headerProfile(p)
                .metadataJson(d.metadataJson())
                .build();
    }

    public static Schedule schedule(String id, Tenant tenant, ScheduleDefinition def, Instant now) {
        Instant first = def.timing().first(now).orElse(null);
        return new Schedule(id, tenant, ScheduleStatus.ACTIVE, def, first, 0, null, 0, now, now);
    }

    /** The outcome of a claimed delivery's attempt that a receiver answered with 200 at {@code at}. */
    public static dev.idem.core.store.DeliveryQueue.Outcome succeeded(Delivery claimed, Instant at) {
        dev.idem.core.Attempt attempt = new dev.idem.core.Attempt(
                "att_" + java.util.UUID.randomUUID(), claimed.id(), claimed.attemptCount(), at, 1, 200, null, null);
        return new dev.idem.core.store.DeliveryQueue.Outcome(
                claimed.id(), attempt, dev.idem.core.DeliveryStatus.SUCCEEDED, null, null);
    }

    /** A delivery as a claim returns it: delivering, {@code attempt} already counted. */
    public static Delivery claimed(Schedule s, String id, long sequence, int attempt) {
        Instant due = s.definition().timing().first(s.createdAt()).orElseThrow();
        Delivery d = Delivery.scheduled(id, s, due, sequence, due);
        return new Delivery(
                d.id(),
                d.tenant(),
                d.scheduleId(),
                d.scheduledFor(),
                d.sequence(),
                dev.idem.core.DeliveryStatus.DELIVERING,
                attempt,
                d.nextAttemptAt(),
                d.idempotencyKey(),
                "node-a",
                due.plusSeconds(90),
                null,
                d.createdAt(),
                d.updatedAt());
    }
}

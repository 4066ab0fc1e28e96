package dev.idem.core.outcome;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.AlertEvent;
import dev.idem.core.Attempt;
import dev.idem.core.Schedule;
import dev.idem.wire.Rfc3339;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * The JSON bodies of the alerts (documented field by field in {@code docs/alerts.md}: keep the two in step). Every body
 * has {@code type} (the event, also sent as {@code Idem-Event-Type}), {@code occurred_at}, {@code project_id},
 * {@code mode}, then the ids and the last failure of what happened. Fields are always present (null when unknown), so a
 * receiver can bind them to a fixed type.
 */
final class AlertBodies {
    private static final ObjectMapper JSON = new ObjectMapper();

    private AlertBodies() {}

    /**
     * {@code delivery.dead}: {@code delivery} of {@code schedule} used up its retries (or its replay failed).
     *
     * @param last the attempt that made it dead
     */
    static byte[] deliveryDead(
            Instant occurredAt,
            Schedule schedule,
            String deliveryId,
            Instant scheduledFor,
            Attempt last,
            String lastError) {
        ObjectNode o = common(AlertEvent.DELIVERY_DEAD, occurredAt, schedule);
        o.put("delivery_id", deliveryId);
        o.put("schedule_id", schedule.id());
        o.put("source_id", sourceId(schedule));
        o.put("endpoint", schedule.definition().endpoint());
        o.put("event_type", schedule.definition().eventType());
        o.put("scheduled_for", scheduledFor == null ? null : Rfc3339.format(scheduledFor));
        o.put("attempts", last.number());
        o.put("last_status_code", last.statusCode());
        o.put("last_error", lastError);
        return bytes(o);
    }

    /**
     * {@code schedule.auto_paused}: {@code schedule} (as it is now: paused) reached its {@code auto_pause_after}.
     *
     * @param deliveryId the delivery whose failed attempt reached the threshold
     * @param last that attempt
     */
    static byte[] scheduleAutoPaused(
            Instant occurredAt,
            Schedule schedule,
            int consecutiveFailures,
            String deliveryId,
            Attempt last,
            String lastError) {
        ObjectNode o = common(AlertEvent.SCHEDULE_AUTO_PAUSED, occurredAt, schedule);
        o.put("schedule_id", schedule.id());
        o.put("source_id", sourceId(schedule));
        o.put("endpoint", schedule.definition().endpoint());
        o.put("event_type", schedule.definition().eventType());
        o.put("paused_reason", Schedule.PAUSED_BY_FAILURES);
        o.put("consecutive_failures", consecutiveFailures);
        o.put("auto_pause_after", schedule.definition().autoPauseAfter());
        o.put("delivery_id", deliveryId);
        o.put("attempt", last == null ? null : last.number());
        o.put("last_status_code", last == null ? null : last.statusCode());
        o.put("last_error", lastError);
        return bytes(o);
    }

    /** {@code endpoint.disabled}: every attempt to {@code endpoint} failed since {@code health.failingSince()}. */
    static byte[] endpointDisabled(
            Instant occurredAt, dev.idem.core.fanout.Endpoint endpoint, EndpointHealth health, String disableAfter) {
        ObjectNode o = common(AlertEvent.ENDPOINT_DISABLED, occurredAt, endpoint.tenant());
        o.put("endpoint_id", endpoint.id());
        o.put("application_id", endpoint.applicationId());
        o.put("url", endpoint.url());
        o.put("failing_since", Rfc3339.format(health.failingSince()));
        o.put("disable_after", disableAfter);
        o.put("last_failure_at", health.lastFailureAt() == null ? null : Rfc3339.format(health.lastFailureAt()));
        o.put("last_error", health.lastFailure());
        return bytes(o);
    }

    private static ObjectNode common(AlertEvent event, Instant occurredAt, Schedule schedule) {
        return common(event, occurredAt, schedule.tenant());
    }

    private static ObjectNode common(AlertEvent event, Instant occurredAt, dev.idem.core.Tenant tenant) {
        ObjectNode o = JSON.createObjectNode();
        o.put("type", event.wireName());
        o.put("occurred_at", Rfc3339.format(occurredAt));
        o.put("project_id", tenant.projectId());
        o.put("mode", tenant.mode().wireName());
        return o;
    }

    /** The inbound source a forwarded event came from, else null. */
    private static String sourceId(Schedule schedule) {
        return schedule.origin() == null ? null : schedule.origin().sourceId();
    }

    private static byte[] bytes(ObjectNode o) {
        try {
            return JSON.writeValueAsString(o).getBytes(StandardCharsets.UTF_8);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("an alert body could not be written as JSON", e);
        }
    }
}

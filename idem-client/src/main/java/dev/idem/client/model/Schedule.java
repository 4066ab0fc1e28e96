package dev.idem.client.model;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;

/**
 * A schedule as the API returns it (docs/api.md). Fields the API adds later are ignored by this version of the
 * client; {@code null} means the API did not send the field or sent null. Durations are the API's short form
 * ({@code "30s"}, {@code "1h"}); statuses are the API's strings ({@code active}, {@code paused}, {@code completed},
 * {@code deleted}), so a status added later still reads.
 *
 * @param kind {@code once}, {@code rrule} or {@code cron}
 * @param payload the JSON payload, or null when a raw {@code body} or the envelope is sent
 * @param lastDeliveryStatus the status of the schedule's latest delivery, once the server reports it
 * @param sequence the last occurrence's sequence number
 */
public record Schedule(
        String id,
        String object,
        Boolean livemode,
        String status,
        String kind,
        String endpoint,
        Instant fireAt,
        String rrule,
        String cron,
        String timezone,
        LocalDateTime dtstart,
        List<LocalDateTime> exdates,
        Instant until,
        Integer count,
        String catchUp,
        Instant nextFireAt,
        Integer consecutiveFailures,
        String pausedReason,
        String lastDeliveryStatus,
        JsonNode payload,
        String body,
        String contentType,
        Map<String, String> headers,
        String eventType,
        String idempotencyKey,
        String dedupId,
        RetryPolicy retry,
        String timeout,
        Integer autoPauseAfter,
        FlowControl flowControl,
        String headerProfile,
        JsonNode metadata,
        Long sequence,
        Instant createdAt,
        Instant updatedAt) {

    public Schedule {
        payload = absentIfNull(payload);
        metadata = absentIfNull(metadata);
    }

    /** The API's {@code null} reads as Java null, as for every other field. */
    private static JsonNode absentIfNull(JsonNode n) {
        return n == null || n.isNull() ? null : n;
    }

    /** Whether nothing remains to attempt. */
    public boolean isCompleted() {
        return "completed".equals(status);
    }
}

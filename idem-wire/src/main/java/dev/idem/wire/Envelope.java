package dev.idem.wire;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * The JSON body sent when a schedule has no payload of its own (docs/wire.md).
 *
 * @param executionId set for header profile {@code rrule}, else null
 * @param eventType null when the schedule has none
 */
public record Envelope(
        String scheduleId,
        String deliveryId,
        Instant scheduledFor,
        Instant executedAt,
        int attempt,
        long sequence,
        String timezone,
        String eventType,
        String inputType,
        String inputValue,
        String executionId) {

    /** The envelope as UTF-8 JSON, fields in the order docs/wire.md gives. */
    public byte[] toJson() {
        StringBuilder b = new StringBuilder(256).append('{');
        field(b, "schedule_id", scheduleId).append(',');
        field(b, "delivery_id", deliveryId).append(',');
        field(b, "scheduled_for", Rfc3339.format(scheduledFor)).append(',');
        field(b, "executed_at", Rfc3339.format(executedAt)).append(',');
        b.append("\"attempt\":").append(attempt).append(',');
        b.append("\"sequence\":").append(sequence).append(',');
        field(b, "timezone", timezone).append(',');
        field(b, "event_type", eventType).append(',');
        b.append("\"input\":{");
        field(b, "type", inputType).append(',');
        field(b, "value", inputValue).append('}');
        if (executionId != null) field(b.append(','), "execution_id", executionId);
        return b.append('}').toString().getBytes(StandardCharsets.UTF_8);
    }

    private static StringBuilder field(StringBuilder b, String name, String value) {
        b.append('"').append(name).append("\":");
        return value == null ? b.append("null") : quote(b, value);
    }

    static StringBuilder quote(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
                    else b.append(c);
                }
            }
        }
        return b.append('"');
    }
}

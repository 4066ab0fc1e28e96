package dev.idem.client.outbox;

import java.time.Instant;

/**
 * One outbox row as stored.
 *
 * @param id the row's id, also the {@code Idempotency-Key} every send of it carries
 * @param request the {@code POST /v1/schedules} body, byte for byte as enqueued
 * @param status {@code pending}, {@code sent} or {@code failed} (Idem refused it, or its key's 24 h window passed)
 * @param attempts how many times a relay claimed it to send
 * @param availableAt when a relay may next claim it: its enqueue time, a relay's lease end, or the next retry
 * @param claimedBy the relay claim holding it now, or null
 * @param scheduleId the created schedule's id, once sent
 * @param lastError why the last attempt failed, or null
 * @param traceparent the W3C trace context of the transaction that enqueued the row, or null when it had none
 * @param tracestate the tracestate beside it, or null
 */
public record OutboxRow(
        String id,
        String request,
        String status,
        int attempts,
        Instant availableAt,
        String claimedBy,
        Instant firstSentAt,
        String scheduleId,
        String lastError,
        Instant createdAt,
        Instant sentAt,
        String traceparent,
        String tracestate) {
    public boolean isSent() {
        return "sent".equals(status);
    }
}

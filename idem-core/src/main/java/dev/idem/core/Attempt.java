package dev.idem.core;

import java.time.Instant;

/**
 * One HTTP attempt of a delivery.
 *
 * @param statusCode the response status, or null when no response came (connection error, timeout)
 * @param error what failed, or null on success
 * @param responseBody the first 1 KiB of the response body, or null
 */
public record Attempt(
        String id,
        String deliveryId,
        int number,
        Instant startedAt,
        long durationMs,
        Integer statusCode,
        String error,
        String responseBody) {
    public static final int RESPONSE_BODY_LIMIT = 1024;

    public boolean succeeded() {
        return error == null && statusCode != null && statusCode >= 200 && statusCode < 300;
    }
}

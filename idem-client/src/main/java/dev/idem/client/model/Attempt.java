package dev.idem.client.model;

import java.time.Instant;

/**
 * One HTTP attempt of a delivery.
 *
 * @param number 1-based, counting on across replays
 * @param statusCode the receiver's status, null when no answer came
 * @param responseBody the first 1 KiB of the receiver's answer
 */
public record Attempt(
        String id,
        Integer number,
        Instant startedAt,
        Long durationMs,
        Integer statusCode,
        String error,
        String responseBody) {}

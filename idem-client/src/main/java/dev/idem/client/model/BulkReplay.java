package dev.idem.client.model;

/**
 * The answer of a bulk replay.
 *
 * @param replayed deliveries made due again now
 * @param skippedScheduleDeleted matching dead deliveries left alone because their schedule was deleted
 */
public record BulkReplay(long replayed, long skippedScheduleDeleted) {}

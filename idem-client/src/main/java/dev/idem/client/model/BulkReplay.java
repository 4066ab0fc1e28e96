package dev.idem.client.model;

/**
 * The answer of a bulk replay.
 *
 * @param replayed deliveries made due again now
 * @param skippedScheduleDeleted matching dead deliveries left alone because their schedule was deleted
 * @param skippedSchedulePaused matching dead deliveries left dead because their schedule is paused (resume it, then
 *     replay again)
 * @param skippedEndpointDeleted matching dead deliveries of messages left dead because their endpoint was deleted
 * @param heldEndpointDisabled of those replayed, the deliveries whose endpoint is disabled: they wait, unattempted,
 *     until it is enabled
 */
public record BulkReplay(
        long replayed,
        long skippedScheduleDeleted,
        long skippedSchedulePaused,
        long skippedEndpointDeleted,
        long heldEndpointDisabled) {}

package dev.idem.core;

import java.time.Instant;
import java.util.Objects;

/**
 * A schedule: its definition plus the state the engine keeps.
 *
 * @param nextFireAt the next occurrence not yet materialised as a delivery; null when none remains
 * @param lastSequence the {@code Idem-Sequence} of the latest materialised occurrence (0 before the first)
 * @param pausedReason why it paused ({@code "consecutive_failures"}, {@code "user"}), else null
 * @param origin who made it when no user did (an inbound source's event, an alert: see {@link Origin}); null for a
 *     schedule created through the API
 * @param trace the trace context of the request that made it, which its attempts carry on; null when it had none
 */
public record Schedule(
        String id,
        Tenant tenant,
        ScheduleStatus status,
        ScheduleDefinition definition,
        Instant nextFireAt,
        int consecutiveFailures,
        String pausedReason,
        long lastSequence,
        Instant createdAt,
        Instant updatedAt,
        Origin origin,
        TraceContext trace) {

    public static final String PAUSED_BY_FAILURES = "consecutive_failures";
    public static final String PAUSED_BY_USER = "user";

    /** A schedule created through the API (no {@link Origin}), without a trace context. */
    public Schedule(
            String id,
            Tenant tenant,
            ScheduleStatus status,
            ScheduleDefinition definition,
            Instant nextFireAt,
            int consecutiveFailures,
            String pausedReason,
            long lastSequence,
            Instant createdAt,
            Instant updatedAt) {
        this(
                id,
                tenant,
                status,
                definition,
                nextFireAt,
                consecutiveFailures,
                pausedReason,
                lastSequence,
                createdAt,
                updatedAt,
                null,
                null);
    }

    public Schedule {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(definition, "definition");
        Objects.requireNonNull(createdAt, "createdAt");
        Objects.requireNonNull(updatedAt, "updatedAt");
    }

    public Schedule withStatus(ScheduleStatus s, String reason, Instant now) {
        return new Schedule(
                id,
                tenant,
                s,
                definition,
                nextFireAt,
                consecutiveFailures,
                reason,
                lastSequence,
                createdAt,
                now,
                origin,
                trace);
    }

    public Schedule withDefinition(ScheduleDefinition d, Instant now) {
        return new Schedule(
                id,
                tenant,
                status,
                d,
                nextFireAt,
                consecutiveFailures,
                pausedReason,
                lastSequence,
                createdAt,
                now,
                origin,
                trace);
    }

    public Schedule withCursor(Instant next, long sequence, Instant now) {
        return new Schedule(
                id,
                tenant,
                status,
                definition,
                next,
                consecutiveFailures,
                pausedReason,
                sequence,
                createdAt,
                now,
                origin,
                trace);
    }

    public Schedule withConsecutiveFailures(int n, Instant now) {
        return new Schedule(
                id,
                tenant,
                status,
                definition,
                nextFireAt,
                n,
                pausedReason,
                lastSequence,
                createdAt,
                now,
                origin,
                trace);
    }

    /** Whether Idem made this schedule itself (it has an {@link Origin}); such schedules are hidden from users' lists. */
    public boolean internal() {
        return origin != null;
    }

    public Schedule withOrigin(Origin o) {
        return new Schedule(
                id,
                tenant,
                status,
                definition,
                nextFireAt,
                consecutiveFailures,
                pausedReason,
                lastSequence,
                createdAt,
                updatedAt,
                o,
                trace);
    }

    /** This schedule with the trace context of the request that made it. */
    public Schedule withTrace(TraceContext t) {
        return new Schedule(
                id,
                tenant,
                status,
                definition,
                nextFireAt,
                consecutiveFailures,
                pausedReason,
                lastSequence,
                createdAt,
                updatedAt,
                origin,
                t);
    }
}

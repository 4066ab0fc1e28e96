package dev.idem.core;

import java.time.Instant;

/**
 * Gives an occurrence that the materialiser writes the creation context its attempts continue (docs/tracing.md): with
 * tracing on, the span that materialised it, which for a recurring schedule begins a trace of its own linked to the
 * schedule's creation. {@link #NONE} (tracing off) makes nothing: a plain occurrence's attempts continue the schedule's
 * stored context, and a scheduled fan-out's message carries that context to each endpoint.
 */
@FunctionalInterface
public interface OccurrenceTracing {
    /** Tracing off: no occurrence has a context of its own. */
    OccurrenceTracing NONE = (schedule, scheduledFor, messageId) -> null;

    /**
     * The creation context of {@code schedule}'s occurrence at {@code scheduledFor}, now being written; null for none.
     *
     * @param messageId the delivery's id, or the message's for a scheduled fan-out
     */
    TraceContext occurrence(Schedule schedule, Instant scheduledFor, String messageId);
}

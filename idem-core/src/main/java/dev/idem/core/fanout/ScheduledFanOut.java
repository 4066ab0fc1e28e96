package dev.idem.core.fanout;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.core.Delivery;
import dev.idem.core.IdGenerator;
import dev.idem.core.OccurrenceTracing;
import dev.idem.core.Schedule;
import dev.idem.core.TraceContext;
import dev.idem.core.store.StoreTx;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A schedule whose definition names a {@link FanOutTarget} instead of a URL: each of its occurrences becomes one
 * message, fanned out ({@link MessageSending}) to the endpoints subscribed when the occurrence fires, not when the
 * schedule was created. The message's id is derived from the schedule and the occurrence ({@link #messageId}), so
 * an occurrence written twice (a retried transaction, a cursor moved back, a second node) is still one message: the
 * second write finds the first and writes nothing.
 *
 * <p>Its occurrences are written only once they are due ({@link dev.idem.core.Materialisation} stops its horizon at
 * now for such a schedule), so an endpoint created or disabled before an occurrence's time is counted for it.
 */
public final class ScheduledFanOut {
    private static final ObjectMapper JSON = new ObjectMapper();

    private ScheduledFanOut() {}

    /** The target of {@code s}, or empty when it sends to a URL. */
    public static Optional<FanOutTarget> target(Schedule s) {
        return FanOutTarget.of(s.definition().endpoint());
    }

    /** The id of the message {@code scheduleId}'s occurrence at {@code occurrence} becomes: the same on every node. */
    public static String messageId(String scheduleId, Instant occurrence) {
        return IdGenerator.derived("msg", occurrence, scheduleId + "\n" + occurrence.toEpochMilli());
    }

    /**
     * Writes the messages of {@code occurrences} (planned as deliveries of {@code s}: their times are the occurrences)
     * with their fan-out, in the caller's transaction.
     *
     * @return the deliveries written, over every endpoint; none for an occurrence whose message existed
     */
    public static List<Delivery> fire(
            StoreTx tx, IdGenerator ids, Schedule s, FanOutTarget target, List<Delivery> occurrences, Instant now) {
        return fire(tx, ids, s, target, occurrences, now, OccurrenceTracing.NONE);
    }

    /**
     * As {@link #fire(StoreTx, IdGenerator, Schedule, FanOutTarget, List, Instant)}, each message carrying the
     * creation context {@code tracing} makes for its occurrence to every endpoint, or else the schedule's own stored
     * context (docs/tracing.md).
     */
    public static List<Delivery> fire(
            StoreTx tx,
            IdGenerator ids,
            Schedule s,
            FanOutTarget target,
            List<Delivery> occurrences,
            Instant now,
            OccurrenceTracing tracing) {
        String payload =
                s.definition().payloadJson() == null ? "{}" : s.definition().payloadJson();
        JsonNode tree = tree(payload);
        List<Delivery> written = new ArrayList<>();
        for (Delivery o : occurrences) {
            Message m = new Message(
                    messageId(s.id(), o.scheduledFor()),
                    s.tenant(),
                    target.eventType(),
                    target.applicationId(),
                    payload,
                    null,
                    null,
                    s.id(),
                    o.scheduledFor(),
                    0,
                    now);
            TraceContext trace = tracing.occurrence(s, o.scheduledFor(), m.id());
            MessageSending.write(tx, ids, m, tree, now, trace == null ? s.trace() : trace)
                    .ifPresent(p -> written.addAll(p.deliveries()));
        }
        return written;
    }

    private static JsonNode tree(String json) {
        try {
            return JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a schedule's stored payload is not JSON", e);
        }
    }
}

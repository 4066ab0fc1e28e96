package dev.idem.core.fanout;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.core.IdGenerator;
import dev.idem.core.TraceContext;
import dev.idem.core.store.StoreTx;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Sends a message in the caller's transaction: stores it once and writes one delivery per subscribed endpoint
 * ({@link FanOut}), in one multi-row insert each for the one-shots and the deliveries, and signals the dispatchers at
 * commit. A message whose id exists already (a scheduled occurrence's derived id, met a second time) writes nothing.
 */
public final class MessageSending {
    private MessageSending() {}

    /**
     * @param message the message, its delivery count still 0
     * @param payload the payload's JSON tree, which endpoints' filters read
     * @return the message as stored with its delivery count, or empty when a message with its id existed already
     */
    public static Optional<Message> send(StoreTx tx, IdGenerator ids, Message message, JsonNode payload, Instant now) {
        return send(tx, ids, message, payload, now, null);
    }

    /**
     * As {@link #send(StoreTx, IdGenerator, Message, JsonNode, Instant)}, keeping {@code trace} (the trace context
     * of the request that sent the message; null for none) with each endpoint's one-shot, so every attempt of the
     * message continues the sender's trace (docs/tracing.md).
     */
    public static Optional<Message> send(
            StoreTx tx, IdGenerator ids, Message message, JsonNode payload, Instant now, TraceContext trace) {
        return write(tx, ids, message, payload, now, trace).map(FanOut.Plan::message);
    }

    /**
     * As {@link #send}, answering with everything written.
     *
     * @return the plan written, or empty when a message with its id existed already
     */
    public static Optional<FanOut.Plan> write(
            StoreTx tx, IdGenerator ids, Message message, JsonNode payload, Instant now) {
        return write(tx, ids, message, payload, now, null);
    }

    /** As {@link #write(StoreTx, IdGenerator, Message, JsonNode, Instant)}, keeping {@code trace} as {@link #send} does. */
    public static Optional<FanOut.Plan> write(
            StoreTx tx, IdGenerator ids, Message message, JsonNode payload, Instant now, TraceContext trace) {
        List<Endpoint> chosen = Subscribers.select(
                tx.endpoints().active(message.tenant(), message.applicationId()),
                message.applicationId(),
                message.eventType(),
                payload);
        return insert(
                tx, traced(FanOut.planFor(message, chosen, limitedApplications(tx, message, chosen), ids, now), trace));
    }

    /** Which of the endpoints' applications have a {@code rate_limit}: one lookup, none without applications. */
    private static Set<String> limitedApplications(StoreTx tx, Message message, List<Endpoint> endpoints) {
        Set<String> applications = new TreeSet<>();
        for (Endpoint e : endpoints) if (e.applicationId() != null) applications.add(e.applicationId());
        return applications.isEmpty() ? Set.of() : tx.applications().rateLimited(message.tenant(), applications);
    }

    /**
     * Sends {@code message} as a test to {@code endpoint} alone ({@link FanOut#test}).
     *
     * @return the message as stored, or empty when a message with its id existed already
     */
    public static Optional<Message> sendTest(
            StoreTx tx, IdGenerator ids, Message message, Endpoint endpoint, Instant now) {
        return sendTest(tx, ids, message, endpoint, now, null);
    }

    /**
     * As {@link #sendTest(StoreTx, IdGenerator, Message, Endpoint, Instant)}, keeping {@code trace} (the trace context
     * of the request that sent the test; null for none) with the test's one-shot, as {@link #send} does.
     */
    public static Optional<Message> sendTest(
            StoreTx tx, IdGenerator ids, Message message, Endpoint endpoint, Instant now, TraceContext trace) {
        return insert(
                        tx,
                        traced(
                                FanOut.test(
                                        message,
                                        endpoint,
                                        limitedApplications(tx, message, List.of(endpoint)),
                                        ids,
                                        now),
                                trace))
                .map(FanOut.Plan::message);
    }

    private static FanOut.Plan traced(FanOut.Plan plan, TraceContext trace) {
        if (trace == null) return plan;
        return new FanOut.Plan(
                plan.message(),
                plan.schedules().stream().map(s -> s.withTrace(trace)).toList(),
                plan.deliveries());
    }

    private static Optional<FanOut.Plan> insert(StoreTx tx, FanOut.Plan plan) {
        if (!tx.messages().insert(plan.message())) return Optional.empty();
        if (!plan.deliveries().isEmpty()) {
            tx.schedules().insertAll(plan.schedules());
            tx.deliveries().insertAll(plan.deliveries());
            tx.notifyDeliveriesDue();
        }
        return Optional.of(plan);
    }
}

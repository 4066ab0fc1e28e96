package dev.idem.core.store;

import dev.idem.core.TraceContext;
import java.util.Collection;
import java.util.Map;

/**
 * The spans a node with tracing on keeps per delivery (docs/tracing.md), so any node continues them: the span that
 * materialised a recurring occurrence (its attempts' parent), the first attempt (a retry's and a replay's link) and the
 * last replay request (the replayed attempt's link). Nothing is written while tracing is off.
 */
public interface DeliveryTraceRepository {
    /**
     * What is kept of one delivery; each field null when none was kept.
     *
     * @param occurrence the span that materialised the occurrence: the root of its trace
     * @param firstAttempt the delivery's first attempt
     * @param replay the request that replayed it last
     */
    record DeliveryTrace(TraceContext occurrence, TraceContext firstAttempt, TraceContext replay) {
        public static final DeliveryTrace NONE = new DeliveryTrace(null, null, null);
    }

    /** What is kept of each of {@code deliveryIds} that has something kept; the others are absent. */
    Map<String, DeliveryTrace> find(Collection<String> deliveryIds);

    /** Keeps each delivery's occurrence span (delivery id → context). */
    void occurrences(Map<String, TraceContext> byDelivery);

    /** Keeps each delivery's first attempt span (delivery id → context), replacing none kept before. */
    void firstAttempts(Map<String, TraceContext> byDelivery);

    /** Keeps {@code replay} as the last replay request of each of {@code deliveryIds}. */
    void replays(Collection<String> deliveryIds, TraceContext replay);
}

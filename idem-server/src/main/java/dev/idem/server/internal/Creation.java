package dev.idem.server.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.IdGenerator;
import dev.idem.core.Tenant;
import dev.idem.core.TraceContext;
import dev.idem.core.creation.ScheduleCreation;
import dev.idem.core.store.StoreTx;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The HTTP answers of schedule creation ({@link ScheduleCreation}, in the caller's transaction): 201 and the schedule
 * as written, or 200 and the first schedule with {@code Idem-Deduplicated: true} for a {@code dedup_id} already taken.
 * The answer is built from what was written, not read back, except a deduplicated one's from an earlier call.
 */
final class Creation {
    private final ScheduleCreation creation;

    Creation(IdGenerator ids, Duration materialiseAhead, dev.idem.core.OccurrenceTracing tracing) {
        this.creation = new ScheduleCreation(ids, materialiseAhead, tracing);
    }

    /** One item's answer: what {@code POST /v1/schedules} would have answered for it alone. */
    record Result(int status, ObjectNode body, Map<String, String> headers) {}

    /** The results, in order; a delivery due soon has signalled the dispatchers ({@link StoreTx#notifyDeliveriesDue()}). */
    List<Result> create(StoreTx tx, Tenant tenant, List<ScheduleParser.Parsed> items, Instant now, TraceContext trace) {
        List<ScheduleCreation.Request> requests = items.stream()
                .map(p -> new ScheduleCreation.Request(resolved(tx, tenant, p), p.dedupId(), trace))
                .toList();
        return creation.create(tx, tenant, requests, now).stream()
                .map(r -> answer(tx, tenant, r, now))
                .toList();
    }

    /**
     * The definition with a fan-out target's application named by id, checked in the transaction before anything is
     * written: the application exists and is not deleted, and the payload conforms to the event type's schema when
     * it has one (each message is sent with it). A URL schedule's definition as it is.
     */
    static dev.idem.core.ScheduleDefinition resolved(StoreTx tx, Tenant tenant, ScheduleParser.Parsed p) {
        var target = dev.idem.core.fanout.FanOutTarget.of(p.definition().endpoint());
        if (target.isEmpty()) return p.definition();
        String applicationId = p.targetApplication() == null
                ? null
                : FanoutFields.liveApplication(tx, tenant, p.targetApplication(), "target.application")
                        .id();
        String eventType = target.get().eventType();
        tx.eventTypes()
                .find(tenant, eventType)
                .ifPresent(t -> FanoutFields.conform(
                        t.schema(),
                        p.definition().payloadJson() == null
                                ? "{}"
                                : p.definition().payloadJson(),
                        "payload",
                        "payload_invalid"));
        return p.definition().withEndpoint(new dev.idem.core.fanout.FanOutTarget(eventType, applicationId).uri());
    }

    private static Result answer(StoreTx tx, Tenant tenant, ScheduleCreation.Result r, Instant now) {
        if (r instanceof ScheduleCreation.Created c) return new Result(201, view(c), Map.of());
        ScheduleCreation.Deduplicated d = (ScheduleCreation.Deduplicated) r;
        ObjectNode first =
                d.sameCall().map(Creation::view).orElseGet(() -> ScheduleViews.one(tx, tenant, d.scheduleId(), now));
        return new Result(200, first, Map.of("Idem-Deduplicated", "true"));
    }

    private static ObjectNode view(ScheduleCreation.Created c) {
        return Views.schedule(c.schedule(), c.nextFireAt(), c.lastDeliveryStatus());
    }
}

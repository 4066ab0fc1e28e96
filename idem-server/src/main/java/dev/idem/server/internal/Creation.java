package dev.idem.server.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.DedupReservation;
import dev.idem.core.Delivery;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.IdGenerator;
import dev.idem.core.Materialisation;
import dev.idem.core.Schedule;
import dev.idem.core.ScheduleStatus;
import dev.idem.core.Tenant;
import dev.idem.core.store.StoreTx;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Writes new schedules in the caller's transaction, one or a whole batch: each with its first occurrences (a
 * one-shot's delivery whatever its time; a rule's occurrences within the horizon), in two multi-row inserts for
 * the lot (schedules, deliveries). The answer is built from what was written, not read back. Items are handled in
 * order, so a batch answers each item as a sequence of single creates would (a second {@code dedup_id} in one
 * batch finds the first).
 */
final class Creation {
    /** A delivery due this soon signals the dispatchers (every node) at commit; later ones are found by their timers. */
    static final Duration SIGNAL_WITHIN = Duration.ofSeconds(2);

    private final IdGenerator ids;
    private final Duration materialiseAhead;

    Creation(IdGenerator ids, Duration materialiseAhead) {
        this.ids = ids;
        this.materialiseAhead = materialiseAhead;
    }

    /** One item's answer: what {@code POST /v1/schedules} would have answered for it alone. */
    record Result(int status, ObjectNode body, Map<String, String> headers) {}

    /** The results, in order; a delivery due soon has signalled the dispatchers ({@link StoreTx#notifyDeliveriesDue()}). */
    List<Result> create(StoreTx tx, Tenant tenant, List<ScheduleParser.Parsed> items, Instant now) {
        List<Result> out = new ArrayList<>(items.size());
        List<Schedule> toInsert = new ArrayList<>();
        List<Delivery> deliveries = new ArrayList<>();
        Map<String, ObjectNode> newViews = new HashMap<>();
        boolean dueSoon = false;
        for (ScheduleParser.Parsed parsed : items) {
            String id = ids.next("sch");
            if (parsed.dedupId() != null) {
                Optional<String> first = DedupReservation.reserve(tx, tenant, "dedup\n" + parsed.dedupId(), id, now);
                if (first.isPresent()) {
                    ObjectNode view = newViews.get(first.get());
                    if (view == null) view = ScheduleViews.one(tx, tenant, first.get(), now);
                    out.add(new Result(200, view, Map.of("Idem-Deduplicated", "true")));
                    continue;
                }
            }
            Instant firstFire = parsed.definition().timing().first(now).orElse(null);
            Schedule s = new Schedule(
                    id,
                    tenant,
                    firstFire == null ? ScheduleStatus.COMPLETED : ScheduleStatus.ACTIVE,
                    parsed.definition(),
                    firstFire,
                    0,
                    null,
                    0,
                    now,
                    now);
            Materialisation.Plan plan = Materialisation.forNew(s, now.plus(materialiseAhead), ids, now);
            Schedule written = plan.advanced(now);
            toInsert.add(written);
            deliveries.addAll(plan.deliveries());
            Instant earliest = plan.deliveries().isEmpty()
                    ? written.nextFireAt()
                    : plan.deliveries().get(0).scheduledFor();
            DeliveryStatus last =
                    plan.deliveries().stream().anyMatch(d -> !d.scheduledFor().isAfter(now))
                            ? DeliveryStatus.SCHEDULED
                            : null;
            for (Delivery d : plan.deliveries()) dueSoon |= d.scheduledFor().isBefore(now.plus(SIGNAL_WITHIN));
            ObjectNode view = Views.schedule(written, earliest, last);
            newViews.put(id, view);
            out.add(new Result(201, view, Map.of()));
        }
        tx.schedules().insertAll(toInsert);
        tx.deliveries().insertAll(deliveries);
        if (dueSoon) tx.notifyDeliveriesDue();
        return out;
    }
}

package dev.idem.server.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.Page;
import dev.idem.core.Schedule;
import dev.idem.core.ScheduleStatus;
import dev.idem.core.Tenant;
import dev.idem.core.store.DeliveryRepository.ScheduleDeliveries;
import dev.idem.core.store.StoreTx;
import java.time.Instant;
import java.util.Map;

/** Schedules as the API shows them: with their next pending occurrence and last due delivery's status, read in sets. */
final class ScheduleViews {
    private static final ScheduleDeliveries NONE = new ScheduleDeliveries(null, null);

    private ScheduleViews() {}

    /** One schedule of the tenant, or 404. */
    static ObjectNode one(StoreTx tx, Tenant tenant, String id, Instant now) {
        Schedule s = tx.schedules().find(tenant, id).orElseThrow(() -> ApiException.notFound("schedule", id));
        return view(s, tx.deliveries().summaries(java.util.List.of(id), now).getOrDefault(id, NONE));
    }

    /** A page: one query for the schedules, one for all their deliveries' summaries. */
    static ObjectNode page(StoreTx tx, String url, Page<Schedule> page, Instant now) {
        Map<String, ScheduleDeliveries> summaries =
                tx.deliveries().summaries(page.data().stream().map(Schedule::id).toList(), now);
        return Views.list(url, page, s -> view(s, summaries.getOrDefault(s.id(), NONE)));
    }

    private static ObjectNode view(Schedule s, ScheduleDeliveries d) {
        Instant pending = d.earliestPending();
        Instant next = pending == null
                ? s.nextFireAt()
                : s.nextFireAt() == null || pending.isBefore(s.nextFireAt()) ? pending : s.nextFireAt();
        return Views.schedule(s, s.status() == ScheduleStatus.DELETED ? null : next, d.lastDueStatus());
    }
}

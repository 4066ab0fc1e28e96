package dev.idem.server.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.Delivery;
import dev.idem.core.DueSoon;
import dev.idem.core.IdGenerator;
import dev.idem.core.Materialisation;
import dev.idem.core.Page;
import dev.idem.core.Resumption;
import dev.idem.core.Schedule;
import dev.idem.core.ScheduleDefinition;
import dev.idem.core.ScheduleStatus;
import dev.idem.core.Tenant;
import dev.idem.core.Timing;
import dev.idem.core.store.Store;
import dev.idem.core.store.StoreTx;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** The schedule operations of the API, each one transaction. */
public final class ScheduleService {
    private final Store store;
    private final ScheduleParser parser;
    private final IdGenerator ids;
    private final Clock clock;
    private final Duration materialiseAhead;
    private final Creation creation;
    private final dev.idem.core.OccurrenceTracing tracing;

    /** @param tracing gives the occurrences written here their creation context, as the materialiser does */
    public ScheduleService(
            Store store,
            ScheduleParser parser,
            IdGenerator ids,
            Clock clock,
            Duration materialiseAhead,
            dev.idem.core.OccurrenceTracing tracing) {
        this.store = store;
        this.parser = parser;
        this.ids = ids;
        this.clock = clock;
        this.materialiseAhead = materialiseAhead;
        this.tracing = tracing;
        this.creation = new Creation(ids, materialiseAhead, tracing);
    }

    /**
     * Creates a schedule (or finds the first one with its {@code dedup_id}) with its first occurrences: a one-shot's
     * delivery whatever its time, a rule's within the materialiser's horizon.
     */
    public ApiResponse create(
            StoreTx tx, Tenant tenant, ScheduleParser.Parsed parsed, Instant now, dev.idem.core.TraceContext trace) {
        Creation.Result one =
                creation.create(tx, tenant, List.of(parsed), now, trace).get(0);
        return new ApiResponse(one.status(), one.body(), one.headers());
    }

    /** The batch route's work: see {@link ScheduleBatch}. */
    List<Creation.Result> createAll(
            StoreTx tx,
            Tenant tenant,
            List<ScheduleParser.Parsed> parsed,
            Instant now,
            dev.idem.core.TraceContext trace) {
        return creation.create(tx, tenant, parsed, now, trace);
    }

    /**
     * Changes a schedule. A one-shot's new fire time moves its delivery while no attempt has started. A new rule or
     * time zone replaces the occurrences written ahead that no attempt has touched (they are deleted, never seen by
     * a receiver) and applies from now; a delivery already attempted stays as it is.
     */
    public ApiResponse patch(StoreTx tx, Tenant tenant, String id, ObjectNode body, Instant now) {
        Schedule s = lock(tx, tenant, id);
        if (s.status() == ScheduleStatus.DELETED)
            throw ApiException.invalid(
                    "schedule_deleted", "id", "Schedule " + id + " is deleted and cannot be changed");
        ScheduleDefinition def = Creation.resolved(tx, tenant, SchedulePatch.apply(parser, s.definition(), body, now));
        Schedule updated = s.withDefinition(def, now);
        boolean timingChanged = !def.timing().equals(s.definition().timing());
        boolean due = false;
        if (timingChanged && def.timing() instanceof Timing.Once once && s.nextFireAt() == null) {
            List<Delivery> unsent = tx.deliveries().neverAttempted(s.id());
            if (unsent.isEmpty() || !tx.deliveries().reschedule(unsent.get(0).id(), once.fireAt(), now))
                throw ApiException.invalid(
                        "schedule_already_fired",
                        "fire_at",
                        "The delivery of one-shot schedule " + id
                                + " is being attempted or has been; replay it or create a new schedule");
            tx.schedules().update(updated);
            due = DueSoon.signals(once.fireAt(), now);
        } else if (timingChanged) {
            int replaced = s.definition().recurring()
                    ? tx.deliveries()
                            .deleteNeverAttempted(tx.deliveries().neverAttempted(s.id()).stream()
                                    .filter(d -> d.scheduledFor().isAfter(now))
                                    .map(Delivery::id)
                                    .toList())
                    : 0;
            Instant next = def.timing().first(now).orElse(null);
            ScheduleStatus status = s.status() == ScheduleStatus.PAUSED ? ScheduleStatus.PAUSED : ScheduleStatus.ACTIVE;
            updated = updated.withCursor(next, s.lastSequence() - replaced, now)
                    .withStatus(status, s.pausedReason(), now);
            tx.schedules().update(updated);
            List<Delivery> written =
                    Materialisation.materialise(tx, List.of(updated), horizonFor(updated, now), ids, now, tracing);
            if (next == null) tx.schedules().completeIfFinished(List.of(id), now);
            due = written.stream().anyMatch(d -> DueSoon.signals(d.scheduledFor(), now));
        } else {
            tx.schedules().update(updated);
        }
        if (due) tx.notifyDeliveriesDue();
        return ApiResponse.ok(ScheduleViews.one(tx, tenant, id, now));
    }

    /** A one-shot's occurrence is written whatever its time; a rule's within the horizon. */
    private Instant horizonFor(Schedule s, Instant now) {
        return s.definition().timing() instanceof Timing.Once once ? once.fireAt() : now.plus(materialiseAhead);
    }

    public ScheduleParser.Parsed parse(com.fasterxml.jackson.databind.node.ObjectNode body, Instant now) {
        return parser.parseCreate(body, now);
    }

    /** The parser, whose endpoint check inbound sources' destinations and the settings' alert_endpoint share. */
    ScheduleParser parser() {
        return parser;
    }

    public ObjectNode get(Tenant tenant, String id) {
        Instant now = clock.instant();
        return store.inReadTransaction(tx -> ScheduleViews.one(tx, tenant, id, now));
    }

    public ObjectNode list(Tenant tenant, ScheduleStatus status, int limit, String startingAfter) {
        Instant now = clock.instant();
        return store.inReadTransaction(tx -> {
            if (startingAfter != null) reload(tx, tenant, startingAfter);
            Page<Schedule> page = tx.schedules().list(tenant, status, limit, startingAfter);
            return ScheduleViews.page(tx, "/v1/schedules", page, now);
        });
    }

    public ApiResponse pause(StoreTx tx, Tenant tenant, String id) {
        Schedule s = lock(tx, tenant, id);
        if (s.status() == ScheduleStatus.DELETED)
            throw ApiException.invalid("schedule_deleted", "id", "Schedule " + id + " is deleted and cannot be paused");
        Instant now = clock.instant();
        if (s.status() != ScheduleStatus.PAUSED)
            tx.schedules().update(s.withStatus(ScheduleStatus.PAUSED, Schedule.PAUSED_BY_USER, now));
        return ApiResponse.ok(ScheduleViews.one(tx, tenant, id, now));
    }

    /** Resumes a paused schedule under its catch-up policy ({@link Resumption}); resets the failure count in any case. */
    public ApiResponse resume(StoreTx tx, Tenant tenant, String id) {
        Schedule s = lock(tx, tenant, id);
        if (s.status() == ScheduleStatus.DELETED)
            throw ApiException.invalid(
                    "schedule_deleted", "id", "Schedule " + id + " is deleted and cannot be resumed");
        Instant now = clock.instant();
        if (s.status() == ScheduleStatus.PAUSED) {
            Resumption.resume(tx, s, ids, now);
            tx.notifyDeliveriesDue();
        } else if (s.consecutiveFailures() != 0) {
            tx.schedules().update(s.withConsecutiveFailures(0, now));
        }
        return ApiResponse.ok(ScheduleViews.one(tx, tenant, id, now));
    }

    public ApiResponse delete(StoreTx tx, Tenant tenant, String id) {
        Schedule s = lock(tx, tenant, id);
        Instant now = clock.instant();
        if (s.status() != ScheduleStatus.DELETED) {
            tx.schedules()
                    .update(s.withStatus(ScheduleStatus.DELETED, null, now).withCursor(null, s.lastSequence(), now));
            tx.deliveries().cancelPending(s.id(), now);
        }
        return ApiResponse.ok(ScheduleViews.one(tx, tenant, id, now));
    }

    private static Schedule reload(StoreTx tx, Tenant tenant, String id) {
        return tx.schedules().find(tenant, id).orElseThrow(() -> ApiException.notFound("schedule", id));
    }

    private static Schedule lock(StoreTx tx, Tenant tenant, String id) {
        return tx.schedules().findForUpdate(tenant, id).orElseThrow(() -> ApiException.notFound("schedule", id));
    }
}

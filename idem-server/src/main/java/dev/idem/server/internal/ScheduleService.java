package dev.idem.server.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.Delivery;
import dev.idem.core.IdGenerator;
import dev.idem.core.IdempotencyRecord;
import dev.idem.core.Materialisation;
import dev.idem.core.Page;
import dev.idem.core.Schedule;
import dev.idem.core.ScheduleDefinition;
import dev.idem.core.ScheduleStatus;
import dev.idem.core.Tenant;
import dev.idem.core.store.Store;
import dev.idem.core.store.StoreTx;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/** The schedule operations of the API, each one transaction. */
public final class ScheduleService {
    static final Duration DEDUP_WINDOW = Duration.ofHours(24);
    private final Store store;
    private final ScheduleParser parser;
    private final IdGenerator ids;
    private final Clock clock;
    private final Duration materialiseAhead;

    public ScheduleService(Store store, ScheduleParser parser, IdGenerator ids, Clock clock, Duration materialiseAhead) {
        this.store = store;
        this.parser = parser;
        this.ids = ids;
        this.clock = clock;
        this.materialiseAhead = materialiseAhead;
    }

    /** Creates a schedule (or finds the first one with its {@code dedup_id}); the first occurrence due soon is written with it. */
    public ApiResponse create(StoreTx tx, Tenant tenant, ScheduleParser.Parsed parsed, Instant now) {
        String id = ids.next("sch");
        if (parsed.dedupId() != null) {
            Optional<String> first = reserveDedupId(tx, tenant, parsed.dedupId(), id, now);
            if (first.isPresent())
                return new ApiResponse(200, view(tx, reload(tx, tenant, first.get())), java.util.Map.of("Idem-Deduplicated", "true"), false);
        }
        Instant firstFire = parsed.definition().timing().first(now).orElse(null);
        Schedule s = new Schedule(id, tenant, firstFire == null ? ScheduleStatus.COMPLETED : ScheduleStatus.ACTIVE,
                parsed.definition(), firstFire, 0, null, 0, now, now);
        tx.schedules().insert(s);
        boolean due = Materialisation.step(tx, s, now.plus(materialiseAhead), ids, now).isPresent();
        if (due) tx.notifyDeliveriesDue();
        return new ApiResponse(201, view(tx, reload(tx, tenant, s.id())), java.util.Map.of(), due);
    }

    /**
     * Reserves {@code dedupId} for schedule {@code id} for 24 hours, or returns the schedule that holds it.
     * The reservation is a row under a unique key (in the request-idempotency table, in a namespace no
     * header value can reach), so two concurrent creates with one dedup_id cannot both win.
     */
    private static Optional<String> reserveDedupId(StoreTx tx, Tenant tenant, String dedupId, String id, Instant now) {
        String key = "dedup\n" + dedupId;
        for (int tries = 0; tries < 3; tries++) {
            if (tx.idempotency().tryInsert(new IdempotencyRecord(tenant, key, id, now, null, 200, new byte[0]))) return Optional.empty();
            Optional<IdempotencyRecord> held = tx.idempotency().find(tenant, key);
            if (held.isEmpty()) continue;
            if (!held.get().createdAt().isBefore(now.minus(DEDUP_WINDOW))) return Optional.of(held.get().fingerprint());
            tx.idempotency().delete(tenant, key);
        }
        throw new IllegalStateException("dedup_id reservation did not settle after 3 tries for " + dedupId);
    }

    /**
     * Changes a schedule. A new rule, time zone or fire time applies from the next occurrence: deliveries
     * already written (the one in flight, and those due within the materialiser's horizon) stay as they are.
     */
    public ApiResponse patch(StoreTx tx, Tenant tenant, String id, ObjectNode body, Instant now) {
        Schedule s = lock(tx, tenant, id);
        if (s.status() == ScheduleStatus.DELETED)
            throw ApiException.invalid("schedule_deleted", "id", "Schedule " + id + " is deleted and cannot be changed");
        ScheduleDefinition def = SchedulePatch.apply(parser, s.definition(), body, now);
        Schedule updated = s.withDefinition(def, now);
        boolean timingChanged = !def.timing().equals(s.definition().timing());
        if (timingChanged) {
            if (!def.recurring() && s.nextFireAt() == null)
                throw ApiException.invalid("schedule_already_fired", "fire_at",
                        "The delivery of one-shot schedule " + id + " already exists; replay it or create a new schedule");
            Instant next = def.timing().first(now).orElse(null);
            ScheduleStatus status = s.status() == ScheduleStatus.PAUSED ? ScheduleStatus.PAUSED
                    : next == null ? ScheduleStatus.COMPLETED : ScheduleStatus.ACTIVE;
            updated = updated.withCursor(next, s.lastSequence(), now).withStatus(status, s.pausedReason(), now);
        }
        tx.schedules().update(updated);
        boolean due = timingChanged && Materialisation.step(tx, updated, now.plus(materialiseAhead), ids, now).isPresent();
        if (due) tx.notifyDeliveriesDue();
        ApiResponse r = ApiResponse.ok(view(tx, reload(tx, tenant, id)));
        return due ? r.waking() : r;
    }

    public ScheduleParser.Parsed parse(com.fasterxml.jackson.databind.node.ObjectNode body, Instant now) {
        return parser.parseCreate(body, now);
    }

    public ObjectNode get(Tenant tenant, String id) {
        return store.inReadTransaction(tx -> view(tx, reload(tx, tenant, id)));
    }

    public ObjectNode list(Tenant tenant, ScheduleStatus status, int limit, String startingAfter) {
        return store.inReadTransaction(tx -> {
            if (startingAfter != null) reload(tx, tenant, startingAfter);
            Page<Schedule> page = tx.schedules().list(tenant, status, limit, startingAfter);
            // one query for the whole page's pending deliveries, not one per schedule
            java.util.Map<String, Instant> pending = tx.deliveries().earliestPending(page.data().stream().map(Schedule::id).toList());
            return Views.list("/v1/schedules", page, s -> view(s, pending.get(s.id())));
        });
    }

    public ApiResponse pause(StoreTx tx, Tenant tenant, String id) {
        Schedule s = lock(tx, tenant, id);
        if (s.status() == ScheduleStatus.DELETED)
            throw ApiException.invalid("schedule_deleted", "id", "Schedule " + id + " is deleted and cannot be paused");
        if (s.status() != ScheduleStatus.PAUSED) tx.schedules().update(s.withStatus(ScheduleStatus.PAUSED, Schedule.PAUSED_BY_USER, clock.instant()));
        return ApiResponse.ok(view(tx, reload(tx, tenant, id)));
    }

    public ApiResponse resume(StoreTx tx, Tenant tenant, String id) {
        Schedule s = lock(tx, tenant, id);
        if (s.status() == ScheduleStatus.DELETED)
            throw ApiException.invalid("schedule_deleted", "id", "Schedule " + id + " is deleted and cannot be resumed");
        Instant now = clock.instant();
        if (s.status() == ScheduleStatus.PAUSED) {
            ScheduleStatus next = s.nextFireAt() == null ? ScheduleStatus.COMPLETED : ScheduleStatus.ACTIVE;
            tx.schedules().update(s.withStatus(next, null, now).withConsecutiveFailures(0, now));
            tx.notifyDeliveriesDue();
        } else if (s.consecutiveFailures() != 0) {
            tx.schedules().update(s.withConsecutiveFailures(0, now));
        }
        return ApiResponse.ok(view(tx, reload(tx, tenant, id))).waking();
    }

    public ApiResponse delete(StoreTx tx, Tenant tenant, String id) {
        Schedule s = lock(tx, tenant, id);
        if (s.status() != ScheduleStatus.DELETED) {
            Instant now = clock.instant();
            tx.schedules().update(s.withStatus(ScheduleStatus.DELETED, null, now).withCursor(null, s.lastSequence(), now));
            tx.deliveries().cancelPending(s.id(), now);
        }
        return ApiResponse.ok(view(tx, reload(tx, tenant, id)));
    }

    private static Schedule reload(StoreTx tx, Tenant tenant, String id) {
        return tx.schedules().find(tenant, id).orElseThrow(() -> ApiException.notFound("schedule", id));
    }

    private static Schedule lock(StoreTx tx, Tenant tenant, String id) {
        return tx.schedules().findForUpdate(tenant, id).orElseThrow(() -> ApiException.notFound("schedule", id));
    }

    private static ObjectNode view(StoreTx tx, Schedule s) {
        return view(s, tx.deliveries().earliestPending(s.id()).orElse(null));
    }

    /** @param pending the earliest scheduled time among the schedule's pending deliveries, or null */
    private static ObjectNode view(Schedule s, Instant pending) {
        Instant next = pending == null ? s.nextFireAt() : s.nextFireAt() == null || pending.isBefore(s.nextFireAt()) ? pending : s.nextFireAt();
        return Views.schedule(s, s.status() == ScheduleStatus.DELETED ? null : next);
    }
}

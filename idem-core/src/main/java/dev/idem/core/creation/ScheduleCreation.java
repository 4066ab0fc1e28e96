package dev.idem.core.creation;

import dev.idem.core.DedupKey;
import dev.idem.core.DedupReservation;
import dev.idem.core.Delivery;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.DueSoon;
import dev.idem.core.IdGenerator;
import dev.idem.core.Materialisation;
import dev.idem.core.OccurrenceTracing;
import dev.idem.core.Schedule;
import dev.idem.core.ScheduleDefinition;
import dev.idem.core.ScheduleStatus;
import dev.idem.core.Tenant;
import dev.idem.core.TraceContext;
import dev.idem.core.store.StoreTx;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Creates schedules in the caller's transaction, one or a whole batch: each with its first occurrences (a one-shot's
 * delivery whatever its time; a rule's occurrences within the horizon), in two multi-row inserts for the lot
 * (schedules, deliveries). Requests are handled in order, so a batch gets for each request what a sequence of single
 * creates would (a second {@code dedup_id} in one batch finds the first). A delivery due soon ({@link DueSoon})
 * signals the dispatchers at commit.
 */
public final class ScheduleCreation {
    private final IdGenerator ids;
    private final Duration materialiseAhead;
    private final OccurrenceTracing tracing;

    /**
     * @param ids makes the schedules' and deliveries' ids
     * @param materialiseAhead how far ahead a rule's occurrences are written at once
     */
    public ScheduleCreation(IdGenerator ids, Duration materialiseAhead) {
        this(ids, materialiseAhead, OccurrenceTracing.NONE);
    }

    /**
     * As {@link #ScheduleCreation(IdGenerator, Duration)}, giving each occurrence of a rule written with its schedule
     * the creation context {@code tracing} makes, as the materialiser does (docs/tracing.md).
     */
    public ScheduleCreation(IdGenerator ids, Duration materialiseAhead, OccurrenceTracing tracing) {
        this.ids = Objects.requireNonNull(ids, "ids");
        this.materialiseAhead = Objects.requireNonNull(materialiseAhead, "materialiseAhead");
        this.tracing = Objects.requireNonNull(tracing, "tracing");
    }

    /**
     * One schedule to create.
     *
     * @param definition the validated definition
     * @param dedupId the user's {@code dedup_id}, or null: when another schedule of the tenant holds it (within
     *     {@link dev.idem.core.IdempotencyWindow#LENGTH}), nothing is written ({@link Deduplicated})
     * @param trace the trace context of the request that asks for it, kept with the schedule; null when none
     */
    public record Request(ScheduleDefinition definition, String dedupId, dev.idem.core.TraceContext trace) {
        public Request {
            Objects.requireNonNull(definition, "definition");
        }

        /** A request without a trace context. */
        public Request(ScheduleDefinition definition, String dedupId) {
            this(definition, dedupId, null);
        }
    }

    /** What one request did: {@link Created} or {@link Deduplicated}. */
    public sealed interface Result permits Created, Deduplicated {}

    /**
     * A schedule written, with its first occurrences.
     *
     * @param schedule the schedule as written (its cursor past the occurrences written)
     * @param nextFireAt its earliest occurrence: the first delivery written, or its cursor when none was
     * @param lastDeliveryStatus {@code SCHEDULED} when an occurrence written is due already, else null
     */
    public record Created(Schedule schedule, Instant nextFireAt, DeliveryStatus lastDeliveryStatus) implements Result {
        public Created {
            Objects.requireNonNull(schedule, "schedule");
        }
    }

    /**
     * Nothing written: the {@code dedup_id} is held by {@code scheduleId}.
     *
     * @param sameCall that schedule when this same call created it (not yet readable as stored by the caller's views)
     */
    public record Deduplicated(String scheduleId, Optional<Created> sameCall) implements Result {
        public Deduplicated {
            Objects.requireNonNull(scheduleId, "scheduleId");
            Objects.requireNonNull(sameCall, "sameCall");
        }
    }

    /** The results, in the requests' order. */
    public List<Result> create(StoreTx tx, Tenant tenant, List<Request> requests, Instant now) {
        List<Result> out = new ArrayList<>(requests.size());
        List<Schedule> toInsert = new ArrayList<>();
        List<Delivery> deliveries = new ArrayList<>();
        Map<String, TraceContext> traced = new HashMap<>();
        Map<String, Created> created = new HashMap<>();
        boolean dueSoon = false;
        for (Request r : requests) {
            String id = ids.next("sch");
            if (r.dedupId() != null) {
                Optional<String> first =
                        DedupReservation.reserve(tx, tenant, DedupKey.ofSchedule(r.dedupId()), id, now);
                if (first.isPresent()) {
                    out.add(new Deduplicated(first.get(), Optional.ofNullable(created.get(first.get()))));
                    continue;
                }
            }
            Instant firstFire = r.definition().timing().first(now).orElse(null);
            Schedule s = new Schedule(
                    id,
                    tenant,
                    firstFire == null ? ScheduleStatus.COMPLETED : ScheduleStatus.ACTIVE,
                    r.definition(),
                    firstFire,
                    0,
                    null,
                    0,
                    now,
                    now,
                    null,
                    r.trace());
            Materialisation.Plan plan = Materialisation.forNew(s, now.plus(materialiseAhead), ids, now);
            Schedule written = plan.advanced(now);
            toInsert.add(written);
            deliveries.addAll(plan.deliveries());
            if (tracing != OccurrenceTracing.NONE && r.definition().recurring())
                for (Delivery d : plan.deliveries()) {
                    TraceContext t = tracing.occurrence(written, d.scheduledFor(), d.id());
                    if (t != null) traced.put(d.id(), t);
                }
            Instant earliest = plan.deliveries().isEmpty()
                    ? written.nextFireAt()
                    : plan.deliveries().get(0).scheduledFor();
            DeliveryStatus last =
                    plan.deliveries().stream().anyMatch(d -> !d.scheduledFor().isAfter(now))
                            ? DeliveryStatus.SCHEDULED
                            : null;
            for (Delivery d : plan.deliveries()) dueSoon |= DueSoon.signals(d.scheduledFor(), now);
            Created c = new Created(written, earliest, last);
            created.put(id, c);
            out.add(c);
        }
        tx.schedules().insertAll(toInsert);
        tx.deliveries().insertAll(deliveries);
        if (!traced.isEmpty()) tx.deliveryTraces().occurrences(traced);
        if (dueSoon) tx.notifyDeliveriesDue();
        return out;
    }
}

package dev.idem.core.store;

import dev.idem.core.Attempt;
import dev.idem.core.Delivery;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.Page;
import dev.idem.core.Tenant;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

public interface DeliveryRepository {
    /**
     * Inserts unless a delivery for the same (scheduleId, scheduledFor) exists: a unique constraint
     * decides, so concurrent materialisers create each occurrence once.
     *
     * @return true when this call inserted it
     */
    default boolean insertIfAbsent(Delivery delivery) {
        return insertAll(List.of(delivery)) == 1;
    }

    /**
     * {@link #insertIfAbsent} for many, in as few statements as the database allows (multi-row inserts).
     *
     * @return how many were inserted
     */
    int insertAll(List<Delivery> deliveries);

    /**
     * The schedule's deliveries that were never attempted ({@code scheduled}, no attempt), oldest occurrence
     * first: what a pause, a catch-up or a change of rule may still cancel or move.
     */
    List<Delivery> neverAttempted(String scheduleId);

    /**
     * Moves a never-attempted delivery to {@code scheduledFor} (due then). Returns false when it was claimed or
     * attempted meanwhile, or is gone.
     */
    boolean reschedule(String deliveryId, Instant scheduledFor, Instant now);

    /** Cancels those of {@code deliveryIds} still never attempted; returns how many. */
    int cancelNeverAttempted(java.util.Collection<String> deliveryIds, Instant now);

    /** Deletes those of {@code deliveryIds} still never attempted (occurrences a new rule replaced); returns how many. */
    int deleteNeverAttempted(java.util.Collection<String> deliveryIds);

    Optional<Delivery> find(Tenant tenant, String id);

    /**
     * What a delivery list narrows by besides whose deliveries it lists and their status; null fields match anything.
     *
     * @param eventType only messages' deliveries whose message has this event type
     * @param since inclusive, on the delivery's {@link Delivery#createdAt()}
     * @param until exclusive, same time
     */
    record ListFilter(String eventType, Instant since, Instant until) {
        public static final ListFilter ANY = new ListFilter(null, null, null);
    }

    /** Newest first (ids descend); null filters mean any; {@code startingAfter} as for schedules. */
    Page<Delivery> list(
            Tenant tenant,
            String scheduleId,
            DeliveryStatus status,
            ListFilter filter,
            int limit,
            String startingAfter);

    /** {@link #list(Tenant, String, DeliveryStatus, ListFilter, int, String)} with no further filter. */
    default Page<Delivery> list(
            Tenant tenant, String scheduleId, DeliveryStatus status, int limit, String startingAfter) {
        return list(tenant, scheduleId, status, ListFilter.ANY, limit, startingAfter);
    }

    /**
     * The deliveries of inbound source {@code sourceId}'s events (internal one-shots with that source id), newest first;
     * null status means any; {@code startingAfter} as for {@link #list}.
     */
    Page<Delivery> listBySource(
            Tenant tenant, String sourceId, DeliveryStatus status, ListFilter filter, int limit, String startingAfter);

    /** {@link #listBySource(Tenant, String, DeliveryStatus, ListFilter, int, String)} with no further filter. */
    default Page<Delivery> listBySource(
            Tenant tenant, String sourceId, DeliveryStatus status, int limit, String startingAfter) {
        return listBySource(tenant, sourceId, status, ListFilter.ANY, limit, startingAfter);
    }

    /**
     * Messages' deliveries to endpoint {@code endpointId} and/or to the endpoints of application {@code applicationId}
     * (either may be null, not both), newest first; null status means any; {@code startingAfter} as for {@link #list}.
     */
    Page<Delivery> listByEndpoint(
            Tenant tenant,
            String endpointId,
            String applicationId,
            DeliveryStatus status,
            ListFilter filter,
            int limit,
            String startingAfter);

    /** {@link #listByEndpoint(Tenant, String, String, DeliveryStatus, ListFilter, int, String)} with no further filter. */
    default Page<Delivery> listByEndpoint(
            Tenant tenant,
            String endpointId,
            String applicationId,
            DeliveryStatus status,
            int limit,
            String startingAfter) {
        return listByEndpoint(tenant, endpointId, applicationId, status, ListFilter.ANY, limit, startingAfter);
    }

    /** The deliveries of message {@code messageId} (one per endpoint it went to), oldest first. */
    List<Delivery> ofMessage(Tenant tenant, String messageId);

    /** Attempts of a delivery, by number ascending. */
    List<Attempt> attempts(String deliveryId);

    /** Cancels every pending (scheduled or retrying) delivery of a schedule; returns how many. */
    int cancelPending(String scheduleId, Instant now);

    /**
     * Makes a {@code DEAD} or {@code SUCCEEDED} delivery due again at {@code now} (status
     * {@code RETRYING}), keeping its id, key and attempt count. Returns false when it is in another state.
     */
    boolean requeueForReplay(Tenant tenant, String deliveryId, Instant now);

    /**
     * One page of a bulk replay's scan: the tenant's {@code DEAD} deliveries matching {@code filter}, ids ascending,
     * after {@code afterId} (null: from the first). Ascending ids make the scan a cursor that never revisits a row,
     * whatever happens to the rows behind it.
     */
    List<Delivery> deadForReplay(Tenant tenant, DeadFilter filter, String afterId, int limit);

    /**
     * {@link #requeueForReplay} for many, in one statement, for those still {@code DEAD} (a bulk replay, whose caller
     * holds their schedules' rows); returns how many were requeued.
     */
    int requeueDeadForReplay(Tenant tenant, java.util.Collection<String> deliveryIds, Instant now);

    /**
     * What a bulk replay matches besides {@code status = dead}; null fields match anything.
     *
     * @param destination only deliveries of schedules with this {@link dev.idem.core.Destination} (or none recorded
     *     yet): a coarse pre-filter, the caller compares the exact endpoint
     * @param deadSince inclusive, on the time the delivery went dead (its last update)
     * @param deadBefore exclusive, same time
     * @param endpointId only messages' deliveries to this endpoint, as {@link #listByEndpoint} narrows
     * @param applicationId only messages' deliveries to this application's endpoints, as {@link #listByEndpoint}
     */
    record DeadFilter(
            String scheduleId,
            String destination,
            Instant deadSince,
            Instant deadBefore,
            String endpointId,
            String applicationId) {}

    /** Whether the schedule has any pending delivery. */
    boolean hasPending(String scheduleId);

    /** The earliest {@code scheduledFor} among the schedule's pending deliveries. */
    default Optional<Instant> earliestPending(String scheduleId) {
        return Optional.ofNullable(
                earliestPending(java.util.List.of(scheduleId)).get(scheduleId));
    }

    /**
     * {@link #earliestPending(String)} for many schedules in one query (a page of a list); schedules with no
     * pending delivery are absent from the map.
     */
    default java.util.Map<String, Instant> earliestPending(java.util.Collection<String> scheduleIds) {
        java.util.Map<String, Instant> out = new java.util.HashMap<>();
        summaries(scheduleIds, Instant.MIN).forEach((id, s) -> {
            if (s.earliestPending() != null) out.put(id, s.earliestPending());
        });
        return out;
    }

    /**
     * What a schedule's view shows of its deliveries, for many schedules in one query (a page of a list); schedules
     * with no delivery are absent.
     *
     * @param now the latest due delivery is the latest whose occurrence is at or before this
     */
    java.util.Map<String, ScheduleDeliveries> summaries(java.util.Collection<String> scheduleIds, Instant now);

    /**
     * @param earliestPending the earliest occurrence among pending deliveries, or null
     * @param lastDueStatus the status of the latest delivery whose occurrence is at or before now, or null
     */
    record ScheduleDeliveries(Instant earliestPending, DeliveryStatus lastDueStatus) {}
}

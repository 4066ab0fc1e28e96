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
    boolean insertIfAbsent(Delivery delivery);

    Optional<Delivery> find(Tenant tenant, String id);

    /** Newest first (ids descend); null filters mean any; {@code startingAfter} as for schedules. */
    Page<Delivery> list(Tenant tenant, String scheduleId, DeliveryStatus status, int limit, String startingAfter);

    /** Attempts of a delivery, by number ascending. */
    List<Attempt> attempts(String deliveryId);

    /** Cancels every pending (scheduled or retrying) delivery of a schedule; returns how many. */
    int cancelPending(String scheduleId, Instant now);

    /**
     * Makes a {@code DEAD} or {@code SUCCEEDED} delivery due again at {@code now} (status
     * {@code RETRYING}), keeping its id, key and attempt count. Returns false when it is in another state.
     */
    boolean requeueForReplay(Tenant tenant, String deliveryId, Instant now);

    /** Whether the schedule has any pending delivery. */
    boolean hasPending(String scheduleId);

    /** The earliest {@code scheduledFor} among the schedule's pending deliveries. */
    default Optional<Instant> earliestPending(String scheduleId) {
        return Optional.ofNullable(earliestPending(java.util.List.of(scheduleId)).get(scheduleId));
    }

    /**
     * {@link #earliestPending(String)} for many schedules in one query (a page of a list); schedules with no
     * pending delivery are absent from the map.
     */
    java.util.Map<String, Instant> earliestPending(java.util.Collection<String> scheduleIds);
}

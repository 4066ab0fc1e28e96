package dev.idem.server.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.Delivery;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.Page;
import dev.idem.core.Replay;
import dev.idem.core.Schedule;
import dev.idem.core.ScheduleStatus;
import dev.idem.core.Tenant;
import dev.idem.core.TraceContext;
import dev.idem.core.store.DeliveryRepository.ListFilter;
import dev.idem.core.store.Store;
import dev.idem.core.store.StoreTx;
import dev.idem.engine.Engine;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** The delivery operations of the API. */
public final class DeliveryService {
    /** Long enough that the rate does not flicker between refreshes, short enough to show a change within a minute. */
    static final Duration STATS_WINDOW = Duration.ofSeconds(60);

    private final Store store;
    private final Clock clock;
    private final Engine engine;

    public DeliveryService(Store store, Clock clock) {
        this(store, clock, null);
    }

    /** @param engine this node's engine, whose load {@code /v1/stats} shows; null for none */
    public DeliveryService(Store store, Clock clock, Engine engine) {
        this.store = store;
        this.clock = clock;
        this.engine = engine;
    }

    public ObjectNode get(Tenant tenant, String id) {
        return store.inReadTransaction(tx -> {
            Delivery d = find(tx, tenant, id);
            var attempts = tx.deliveries().attempts(d.id());
            ObjectNode o = Views.delivery(d, attempts);
            o.set(
                    "request",
                    RequestViews.latest(
                            d,
                            tx.schedules().find(tenant, d.scheduleId()),
                            attempts,
                            tx.signingSecrets().find(tenant)));
            return o;
        });
    }

    /**
     * @param sourceId an inbound source's id: only the deliveries of its events (not with {@code scheduleId})
     * @param filter event type and time range ({@link ListFilters#parse})
     */
    public ObjectNode list(
            Tenant tenant,
            String scheduleId,
            String sourceId,
            DeliveryStatus status,
            ListFilter filter,
            int limit,
            String startingAfter) {
        if (scheduleId != null && !scheduleId.isEmpty() && sourceId != null && !sourceId.isEmpty())
            throw ApiException.invalid("parameter_conflict", "source_id", "Give schedule_id or source_id, not both");
        return store.inReadTransaction(tx -> {
            if (startingAfter != null) find(tx, tenant, startingAfter);
            Page<Delivery> page = sourceId != null && !sourceId.isEmpty()
                    ? tx.deliveries().listBySource(tenant, sourceId, status, filter, limit, startingAfter)
                    : tx.deliveries().list(tenant, scheduleId, status, filter, limit, startingAfter);
            return Views.list("/v1/deliveries", page, d -> Views.delivery(d, null));
        });
    }

    /**
     * Messages' deliveries to one endpoint ({@code endpoint_id}) and/or to an application's endpoints
     * ({@code application}, an id or a uid), newest first; neither goes with {@code schedule_id} or {@code source_id}.
     */
    ObjectNode listByEndpoint(
            Tenant tenant,
            String endpointId,
            String application,
            String scheduleOrSource,
            DeliveryStatus status,
            ListFilter filter,
            int limit,
            String startingAfter) {
        if (scheduleOrSource != null)
            throw ApiException.invalid(
                    "parameter_conflict",
                    endpointId != null ? "endpoint_id" : "application",
                    "Give schedule_id or source_id, or endpoint_id and application, not both kinds");
        return store.inReadTransaction(tx -> {
            if (startingAfter != null) find(tx, tenant, startingAfter);
            String applicationId = application == null
                    ? null
                    : ApplicationService.find(tx, tenant, application).id();
            Page<Delivery> page = tx.deliveries()
                    .listByEndpoint(tenant, endpointId, applicationId, status, filter, limit, startingAfter);
            return Views.list("/v1/deliveries", page, d -> Views.delivery(d, null));
        });
    }

    /** Sends a dead or succeeded delivery once more, same id and key, the attempt number counting on. */
    public ApiResponse replay(StoreTx tx, Tenant tenant, String id) {
        return replay(tx, tenant, id, null);
    }

    /**
     * As {@link #replay(StoreTx, Tenant, String)}, keeping {@code request} (the replay request's span; null when
     * tracing is off) for the replayed attempt's span to link to.
     */
    public ApiResponse replay(StoreTx tx, Tenant tenant, String id, TraceContext request) {
        Delivery d = find(tx, tenant, id);
        // the schedule's row first (as every change of its deliveries' pending-ness takes it)
        var schedule = tx.schedules().findForUpdate(tenant, d.scheduleId());
        if (scheduleDeleted(schedule))
            throw ApiException.invalid(
                    "schedule_deleted",
                    "id",
                    "Delivery " + id + " belongs to schedule " + d.scheduleId()
                            + ", which was deleted; its deliveries are not sent again (create a new schedule to send it)");
        boolean held = endpointDisabled(tx, tenant, d, id);
        if (!requeue(tx, tenant, id, schedule, held, clock.instant()))
            throw ApiException.invalid(
                    "delivery_not_replayable",
                    "id",
                    "Delivery " + id + " is " + d.status().wireName()
                            + "; only dead or succeeded deliveries can be replayed");
        if (request != null) tx.deliveryTraces().replays(List.of(id), request);
        tx.notifyDeliveriesDue();
        Delivery now = find(tx, tenant, id);
        return ApiResponse.ok(Views.delivery(now, tx.deliveries().attempts(id)));
    }

    /**
     * Whether a message's delivery waits for its endpoint: true while the endpoint is disabled; a 400 naming the
     * endpoint when it was deleted (its deliveries are not sent again). The endpoint's row is locked after the
     * schedule's, so an endpoint disabled at the same moment either sees the replayed delivery waiting and pauses it, or
     * is seen disabled here.
     */
    static boolean endpointDisabled(StoreTx tx, Tenant tenant, Delivery d, String requested) {
        if (d.endpointId() == null) return false;
        var endpoint = tx.endpoints().findForUpdate(tenant, d.endpointId());
        if (endpoint.isEmpty()) return false;
        if (endpoint.get().deleted())
            throw ApiException.invalid(
                    "endpoint_deleted",
                    "id",
                    "Delivery " + requested + " goes to endpoint " + d.endpointId()
                            + ", which was deleted; its deliveries are not sent again (send the message again to "
                            + "reach the endpoints subscribed now)");
        return endpoint.get().disabled();
    }

    /** A delivery whose schedule was deleted (or is gone) is not sent again, alone or in bulk. */
    static boolean scheduleDeleted(Optional<Schedule> schedule) {
        return schedule.map(sc -> sc.status() == ScheduleStatus.DELETED).orElse(true);
    }

    /**
     * Makes a dead or succeeded delivery due now, the caller holding its schedule's row; false when it is in another
     * state. Its schedule becomes what {@link Replay#settled} says ({@code held}: its endpoint is disabled).
     */
    static boolean requeue(
            StoreTx tx, Tenant tenant, String deliveryId, Optional<Schedule> schedule, boolean held, Instant now) {
        if (!tx.deliveries().requeueForReplay(tenant, deliveryId, now)) return false;
        schedule.flatMap(sc -> Replay.settled(sc, held, now)).ifPresent(tx.schedules()::update);
        return true;
    }

    /** The dashboard's counters for one tenant, over the last {@link #STATS_WINDOW} (docs/api.md says how each is computed). */
    public ObjectNode stats(Tenant tenant) {
        Instant now = clock.instant();
        var stats = store.inReadTransaction(tx -> tx.stats().deliveryStats(tenant, now.minus(STATS_WINDOW), now));
        ObjectNode o = Views.stats(stats, now, STATS_WINDOW);
        if (engine != null) {
            // this node's load, not the tenant's: attempts on the wire and destinations sent fewer at once
            o.put("attempts_in_flight", engine.attemptsInFlight());
            o.put("destinations_throttled", engine.destinationsThrottled());
        }
        return o;
    }

    private static Delivery find(StoreTx tx, Tenant tenant, String id) {
        return tx.deliveries().find(tenant, id).orElseThrow(() -> ApiException.notFound("delivery", id));
    }
}

package dev.idem.server.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.Delivery;
import dev.idem.core.Destination;
import dev.idem.core.Durations;
import dev.idem.core.Replay;
import dev.idem.core.Schedule;
import dev.idem.core.ScheduleStatus;
import dev.idem.core.Tenant;
import dev.idem.core.fanout.Endpoint;
import dev.idem.core.store.DeliveryRepository.DeadFilter;
import dev.idem.core.store.Store;
import dev.idem.core.store.StoreTx;
import io.javalin.http.Handler;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * {@code POST /v1/deliveries/replay}, bulk recovery (docs/api.md, "Bulk recovery"): every dead delivery matching a
 * filter is replayed as {@code POST /v1/deliveries/{id}/replay} does, except those of a deleted schedule or endpoint
 * (never sent again) and of a paused schedule (left dead, since the engine sends nothing of a paused schedule: counted,
 * so the answer says what waits for a resume); a disabled endpoint's are replayed and wait for it to be enabled
 * (counted too), {@value #CHUNK} per transaction (docs/api.md says why), under
 * {@link RequestIdempotency#runInSteps}, so a retried call with the same {@code Idempotency-Key} carries on where the
 * first stopped and replays nothing twice.
 */
public final class BulkReplay {
    /**
     * Deliveries per transaction. Each one locks the schedules of its deliveries and, on SQLite, the only writer: 500
     * keeps that to tens of milliseconds (the engine's claims and outcomes wait behind it no longer than behind one of
     * its own batches, whose default size is also 500), while 10,000 dead deliveries still take only 20 transactions.
     */
    static final int CHUNK = 500;

    private static final Set<String> FIELDS =
            Set.of("status", "schedule_id", "endpoint", "endpoint_id", "application", "since", "until");
    private static final String SKIPPED_DELETED = "skipped_schedule_deleted";
    private static final String SKIPPED_PAUSED = "skipped_schedule_paused";
    private static final String SKIPPED_ENDPOINT_DELETED = "skipped_endpoint_deleted";
    private static final String HELD = "held_endpoint_disabled";

    private BulkReplay() {}

    /** The route's handler: the filter is checked before anything is claimed or written. */
    public static Handler handler(Store store, RequestIdempotency idempotency, Clock clock, ServerTracing tracing) {
        return ctx -> {
            if (ctx.bodyAsBytes().length > HttpApi.MAX_BODY_BYTES)
                throw ApiException.invalid("body_too_large", null, "Request body is over 256 KiB");
            Tenant tenant = Authenticator.tenant(ctx);
            Filter parsed = Filter.parse(HttpApi.body(ctx), clock);
            Filter filter = store.inReadTransaction(tx -> parsed.resolveReferences(tx, tenant));
            tracing.inSpan("replay deliveries", () -> {
                // each replayed attempt links to this span (null when tracing is off)
                idempotency.runInSteps(ctx, tenant, new Run(tenant, filter, clock, tracing.linkContext()));
                return null;
            });
        };
    }

    /**
     * The request's filter. {@code since} and {@code until} are on the time a delivery went dead, each an RFC 3339
     * instant or a duration back from the call's start ({@code 1h}); only what was dead when the call started matches.
     * {@code endpoint_id} and {@code application} (an id or a uid, resolved to {@code applicationId}) narrow to messages'
     * deliveries as {@code GET /v1/deliveries} does.
     */
    record Filter(
            String scheduleId,
            String endpoint,
            String since,
            String until,
            String endpointId,
            String application,
            String applicationId) {
        /**
         * The body's filter, refused with a 400 naming the field when a time is not one or {@code since} is not before
         * {@code until} as resolved at {@code clock}'s now (the clock the run then resolves them against).
         */
        static Filter parse(ObjectNode body, Clock clock) {
            Fields f = Fields.of(body).only(FIELDS);
            String status = f.requiredString("status", 64);
            if (!status.equals("dead"))
                throw ApiException.invalid(
                        "parameter_invalid",
                        "status",
                        "status must be \"dead\": only dead deliveries are replayed in bulk "
                                + "(replay a succeeded one with POST /v1/deliveries/{id}/replay)");
            Filter filter = new Filter(
                    f.string("schedule_id", 255),
                    f.string("endpoint", 2048),
                    f.string("since", 64),
                    f.string("until", 64),
                    f.string("endpoint_id", 255),
                    f.string("application", 255),
                    null);
            if (filter.scheduleId != null && (filter.endpointId != null || filter.application != null))
                throw ApiException.invalid(
                        "parameter_conflict",
                        filter.endpointId != null ? "endpoint_id" : "application",
                        "Give schedule_id, or endpoint_id and application, not both kinds");
            filter.resolve(clock.instant()); // refuses a bad since/until (or since after until) before anything runs
            return filter;
        }

        /**
         * This filter with its application's id: an unknown application, or an endpoint not of the tenant, is a 400
         * naming the field (nothing to replay is not what the caller meant).
         */
        Filter resolveReferences(StoreTx tx, Tenant tenant) {
            if (endpointId != null) {
                var endpoint = tx.endpoints().find(tenant, endpointId);
                if (endpoint.isEmpty())
                    throw ApiException.invalid(
                            "endpoint_unknown", "endpoint_id", "No endpoint with id '" + endpointId + "'");
                if (endpoint.get().deleted())
                    throw ApiException.invalid(
                            "endpoint_deleted",
                            "endpoint_id",
                            "Endpoint " + endpointId + " was deleted; its deliveries are not sent again");
            }
            if (application == null) return this;
            String id = FanoutFields.knownApplication(tx, tenant, application, "application")
                    .id();
            return new Filter(scheduleId, endpoint, since, until, endpointId, application, id);
        }

        /** The store's filter, times resolved against {@code start}, the call's start. */
        DeadFilter resolve(Instant start) {
            Instant since = time("since", this.since, start);
            Instant until = time("until", this.until, start);
            if (since != null && until != null && !since.isBefore(until))
                throw ApiException.invalid("parameter_out_of_range", "until", "until must be after since");
            Instant before = start.plusMillis(1); // what was dead at the start, at the store's millisecond precision
            if (until != null && until.isBefore(before)) before = until;
            return new DeadFilter(
                    scheduleId,
                    endpoint == null ? null : Destination.of(endpoint),
                    since,
                    before,
                    endpointId,
                    applicationId);
        }

        private static Instant time(String field, String text, Instant start) {
            if (text == null) return null;
            try {
                return OffsetDateTime.parse(text).toInstant();
            } catch (DateTimeParseException notAnInstant) {
                try {
                    java.time.Duration ago = Durations.parse(text);
                    if (ago.isNegative()) throw new IllegalArgumentException("negative");
                    return start.minus(ago);
                } catch (IllegalArgumentException | ArithmeticException | java.time.DateTimeException notADuration) {
                    throw ApiException.invalid(
                            "parameter_invalid_time",
                            field,
                            field + " must be an RFC 3339 instant such as "
                                    + "2026-03-10T17:00:00Z, or a duration back from now such as 1h or PT30M; got '"
                                    + text + "'");
                }
            }
        }
    }

    /** The steps: a cursor over the dead-letter queue, ids ascending, {@value #CHUNK} deliveries a step. */
    private record Run(Tenant tenant, Filter filter, Clock clock, dev.idem.core.TraceContext request)
            implements RequestIdempotency.Steps {
        @Override
        public ObjectNode start() {
            return Json.object()
                    .put("started_at", clock.instant().toEpochMilli())
                    .put("replayed", 0)
                    .put(SKIPPED_DELETED, 0)
                    .put(SKIPPED_PAUSED, 0)
                    .put(SKIPPED_ENDPOINT_DELETED, 0)
                    .put(HELD, 0);
        }

        @Override
        public RequestIdempotency.Step step(StoreTx tx, ObjectNode state) {
            DeadFilter dead =
                    filter.resolve(Instant.ofEpochMilli(state.get("started_at").asLong()));
            List<Delivery> page = tx.deliveries()
                    .deadForReplay(tenant, dead, state.path("after").textValue(), CHUNK);
            Instant now = clock.instant();
            // the schedules' rows first, in id order as the engine takes them (no deadlock with its outcome batches)
            Map<String, Optional<Schedule>> schedules = new TreeMap<>();
            for (Delivery d : page) schedules.put(d.scheduleId(), null);
            schedules.replaceAll((id, none) -> tx.schedules().findForUpdate(tenant, id));
            // then their endpoints' rows, in id order: as for one replay (DeliveryService.endpointDisabled)
            Map<String, Optional<Endpoint>> endpoints = new TreeMap<>();
            for (Delivery d : page) if (d.endpointId() != null) endpoints.put(d.endpointId(), null);
            endpoints.replaceAll((id, none) -> tx.endpoints().findForUpdate(tenant, id));
            List<String> eligible = new ArrayList<>();
            List<String> held = new ArrayList<>();
            Set<String> activated = new TreeSet<>();
            int deleted = 0;
            int paused = 0;
            int endpointDeleted = 0;
            for (Delivery d : page) {
                Optional<Schedule> schedule = schedules.get(d.scheduleId());
                if (filter.endpoint() != null
                        && schedule.map(sc -> !sc.definition().endpoint().equals(filter.endpoint()))
                                .orElse(true)) continue; // another endpoint on the same destination: not a match
                if (DeliveryService.scheduleDeleted(schedule)) {
                    deleted++;
                    continue;
                }
                Optional<Endpoint> endpoint = d.endpointId() == null ? Optional.empty() : endpoints.get(d.endpointId());
                if (endpoint.map(Endpoint::deleted).orElse(false)) {
                    endpointDeleted++;
                    continue;
                }
                boolean waits = endpoint.map(Endpoint::disabled).orElse(false);
                Schedule sc = schedule.get();
                if (sc.status() == ScheduleStatus.PAUSED
                        && !(waits && Endpoint.PAUSED_REASON.equals(sc.pausedReason()))) {
                    paused++;
                    continue;
                }
                (waits ? held : eligible).add(d.id());
                // sc is its row as read at the step's start, the same for each of its deliveries: a completed one is
                // activated (and noted in activated) once a step
                Optional<Schedule> settled = Replay.settled(sc, waits, now);
                if (settled.isPresent() && (waits || activated.add(sc.id())))
                    tx.schedules().update(settled.get());
            }
            int heldReplayed = held.isEmpty() ? 0 : tx.deliveries().requeueDeadForReplay(tenant, held, now);
            int replayed = heldReplayed
                    + (eligible.isEmpty() ? 0 : tx.deliveries().requeueDeadForReplay(tenant, eligible, now));
            // one pruned meanwhile (the rest are held by their schedules' rows): completed again if nothing is pending
            if (replayed - heldReplayed < eligible.size() && !activated.isEmpty())
                tx.schedules().completeIfFinished(activated, now);
            if (replayed > 0) tx.notifyDeliveriesDue();
            if (replayed > 0 && request != null) tx.deliveryTraces().replays(eligible, request);
            ObjectNode next = state.deepCopy();
            next.put("replayed", state.get("replayed").asLong() + replayed);
            next.put(SKIPPED_DELETED, state.get(SKIPPED_DELETED).asLong() + deleted);
            // path(): progress recorded before this count existed reads as none skipped so far
            next.put(SKIPPED_PAUSED, state.path(SKIPPED_PAUSED).asLong() + paused);
            next.put(
                    SKIPPED_ENDPOINT_DELETED,
                    state.path(SKIPPED_ENDPOINT_DELETED).asLong() + endpointDeleted);
            next.put(HELD, state.path(HELD).asLong() + heldReplayed);
            if (!page.isEmpty()) next.put("after", page.get(page.size() - 1).id());
            if (page.size() == CHUNK) return new RequestIdempotency.Step(next, null);
            ObjectNode body = Json.object()
                    .put("replayed", next.get("replayed").asLong())
                    .put(SKIPPED_DELETED, next.get(SKIPPED_DELETED).asLong())
                    .put(SKIPPED_PAUSED, next.get(SKIPPED_PAUSED).asLong())
                    .put(
                            SKIPPED_ENDPOINT_DELETED,
                            next.get(SKIPPED_ENDPOINT_DELETED).asLong())
                    .put(HELD, next.get(HELD).asLong());
            return new RequestIdempotency.Step(next, ApiResponse.ok(body));
        }
    }
}

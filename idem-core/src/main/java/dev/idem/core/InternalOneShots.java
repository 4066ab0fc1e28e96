package dev.idem.core;

import dev.idem.core.store.StoreTx;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Deliveries that no user schedule created: an inbound source's event, an alert. Each is a one-shot schedule due now
 * whose row carries an {@link Origin}, written with its delivery in the caller's transaction, so the engine delivers
 * it like any other (claim, retries, dead-letter, replay, signature) while users' schedule lists never show it. It
 * never pauses itself ({@code auto_pause_after} 0): nobody could resume it.
 *
 * <pre>{@code
 * Created c = store.inTransaction(tx -> InternalOneShots.create(tx, ids,
 *         InternalOneShots.Request.of(tenant, Origin.alert(), endpoint, bodyBytes, "application/json")
 *                 .withEventType("delivery.dead").withDedupId("delivery.dead:" + deliveryId), now));
 * if (c.dueNow()) ... // the transaction already signalled the dispatchers (StoreTx.notifyDeliveriesDue)
 * }</pre>
 */
public final class InternalOneShots {
    private InternalOneShots() {}

    /**
     * What to deliver.
     *
     * @param body the request body, sent byte for byte: any bytes (kept as text when they are storable UTF-8 text,
     *     else as base64, {@link ScheduleDefinition#bodyBase64()})
     * @param headers extra request headers; names reserved by the wire format are dropped by the engine
     * @param eventType sent as {@code Idem-Event-Type}, or null
     * @param dedupId when set, a second create with the same id, origin kind and source within
     *     {@link IdempotencyWindow#LENGTH} writes nothing and returns the first ({@link Created#deduplicated()}); this
     *     namespace is apart from users' {@code dedup_id}s
     */
    public record Request(
            Tenant tenant,
            Origin origin,
            String endpoint,
            Map<String, String> headers,
            byte[] body,
            String contentType,
            String eventType,
            String dedupId,
            RetryPolicy retry,
            Duration timeout) {
        public Request {
            Objects.requireNonNull(tenant, "tenant");
            Objects.requireNonNull(origin, "origin");
            Objects.requireNonNull(endpoint, "endpoint");
            Objects.requireNonNull(body, "body");
            Objects.requireNonNull(contentType, "contentType");
            Objects.requireNonNull(retry, "retry");
            Objects.requireNonNull(timeout, "timeout");
            headers = headers == null ? Map.of() : Map.copyOf(headers);
        }

        /** A request with no extra headers, event type or dedup id, the default retry policy and timeout. */
        public static Request of(Tenant tenant, Origin origin, String endpoint, byte[] body, String contentType) {
            return new Request(
                    tenant,
                    origin,
                    endpoint,
                    Map.of(),
                    body,
                    contentType,
                    null,
                    null,
                    RetryPolicy.DEFAULT,
                    ScheduleDefinition.DEFAULT_TIMEOUT);
        }

        public Request withHeaders(Map<String, String> v) {
            return new Request(tenant, origin, endpoint, v, body, contentType, eventType, dedupId, retry, timeout);
        }

        public Request withEventType(String v) {
            return new Request(tenant, origin, endpoint, headers, body, contentType, v, dedupId, retry, timeout);
        }

        public Request withDedupId(String v) {
            return new Request(tenant, origin, endpoint, headers, body, contentType, eventType, v, retry, timeout);
        }

        public Request withRetry(RetryPolicy v) {
            return new Request(tenant, origin, endpoint, headers, body, contentType, eventType, dedupId, v, timeout);
        }

        public Request withTimeout(Duration v) {
            return new Request(tenant, origin, endpoint, headers, body, contentType, eventType, dedupId, retry, v);
        }
    }

    /**
     * @param scheduleId the internal schedule (the first one when deduplicated)
     * @param deliveryId its delivery
     * @param deduplicated true when {@link Request#dedupId()} was already taken: nothing was written
     */
    public record Created(String scheduleId, String deliveryId, boolean deduplicated) {}

    /**
     * Writes the one-shot and its delivery, due at {@code now}, in {@code tx}, and signals the dispatchers at commit;
     * or, when its dedup id is taken, returns the first one and writes nothing.
     *
     * @throws IllegalArgumentException when a field is invalid for a definition
     */
    public static Created create(StoreTx tx, IdGenerator ids, Request r, Instant now) {
        return create(tx, ids, r, now, null);
    }

    /**
     * As {@link #create(StoreTx, IdGenerator, Request, Instant)}, keeping {@code trace} (the context of the request
     * that brought the event, or null) with the one-shot, so its attempts continue that trace.
     */
    public static Created create(StoreTx tx, IdGenerator ids, Request r, Instant now, TraceContext trace) {
        String text = storableText(r.body());
        boolean base64 = text == null;
        if (base64) text = java.util.Base64.getEncoder().encodeToString(r.body());
        String id = ids.next("sch");
        if (r.dedupId() != null) {
            Optional<String> first =
                    DedupReservation.reserve(tx, r.tenant(), DedupKey.ofInternal(r.origin(), r.dedupId()), id, now);
            if (first.isPresent()) {
                String deliveryId = tx.deliveries().list(r.tenant(), first.get(), null, 1, null).data().stream()
                        .findFirst()
                        .map(Delivery::id)
                        .orElse(null);
                return new Created(first.get(), deliveryId, true);
            }
        }
        ScheduleDefinition def = new ScheduleDefinition(
                r.endpoint(),
                new Timing.Once(now),
                null,
                text,
                r.contentType(),
                r.headers(),
                r.eventType(),
                null,
                null,
                r.retry(),
                r.timeout(),
                0,
                HeaderProfile.STANDARD,
                null,
                null,
                base64,
                null);
        Schedule s =
                new Schedule(id, r.tenant(), ScheduleStatus.ACTIVE, def, now, 0, null, 0, now, now, r.origin(), trace);
        Materialisation.Plan plan = Materialisation.forNew(s, now, ids, now);
        tx.schedules().insertAll(List.of(plan.advanced(now)));
        tx.deliveries().insertAll(plan.deliveries());
        tx.notifyDeliveriesDue();
        return new Created(id, plan.deliveries().get(0).id(), false);
    }

    /**
     * The body as text when every store keeps it as such: strict UTF-8 without U+0000 (which PostgreSQL's text and
     * JSON types refuse); else null, and it is kept as base64.
     */
    static String storableText(byte[] body) {
        String text = Utf8.decodeOrNull(body);
        return text == null || text.indexOf('\u0000') >= 0 ? null : text;
    }
}

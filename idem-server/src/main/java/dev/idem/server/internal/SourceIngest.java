package dev.idem.server.internal;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.IdGenerator;
import dev.idem.core.InternalOneShots;
import dev.idem.core.Origin;
import dev.idem.core.Source;
import dev.idem.core.fanout.FanOutTarget;
import dev.idem.core.fanout.InboundFanOut;
import dev.idem.core.store.Store;
import dev.idem.wire.SignatureCheck;
import dev.idem.wire.WebhookHeaders;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * {@code POST /in/{source_id}}: the exposed, unauthenticated surface of inbound sources. In order: the source (kept
 * apart from unknown ids: {@link SourceLookup}), the per-source rate limit, the body limit, the signature over the raw
 * bytes. Only a verified request writes
 * anything: its event as an internal one-shot to the source's destination, deduplicated for 24 h by the provider's
 * event id, committed before the 200. A forgery gets 403 {@code BAD_SIGNATURE}; a store that does not answer, 503 (the
 * provider retries, and the dedup keeps a retry of an event that did commit from being forwarded twice).
 */
public final class SourceIngest {
    /** The largest body accepted: providers' events are far smaller (Stripe's are a few KiB). */
    static final int MAX_BODY_BYTES = 1024 * 1024;
    /** Forwarded under {@code Idem-Source-Header-<name>}; these describe the connection, not the event. */
    private static final java.util.Set<String> NOT_FORWARDED =
            java.util.Set.of("host", "content-length", "content-type", "expect");

    private final Store store;
    private final IdGenerator ids;
    private final Clock clock;
    private final RateLimiter limiter;
    private final SourceLookup sources;
    /** A test's hook between the commit and the answer (a node that dies there); null in production. */
    private static volatile Runnable afterCommitForTests;

    /** For tests only: runs {@code hook} on every ingest after its commit and before its answer (null: none). */
    public static void afterCommitForTests(Runnable hook) {
        afterCommitForTests = hook;
    }

    SourceIngest(Store store, IdGenerator ids, Clock clock) {
        this.store = store;
        this.ids = ids;
        this.clock = clock;
        this.limiter = new RateLimiter(0, clock);
        this.sources = new SourceLookup(store, clock);
    }

    /** What ingest answers: the status and JSON body. */
    record Answer(int status, ObjectNode body) {}

    /** An event without a trace context. */
    Answer ingest(String sourceId, Map<String, String> headers, String contentType, byte[] body) {
        return ingest(sourceId, headers, contentType, body, null);
    }

    /**
     * @param headers the request's header names and values (a name given twice: its values joined by ", ")
     * @param trace the provider's trace context (or Idem's ingest span's, when tracing is on), kept with the event;
     *     null when none
     */
    Answer ingest(
            String sourceId,
            Map<String, String> headers,
            String contentType,
            byte[] body,
            dev.idem.core.TraceContext trace) {
        Source source = sources.find(sourceId);
        limiter.acquire("in\n" + sourceId, source.rateLimit(), "source " + sourceId);
        if (body.length > MAX_BODY_BYTES) throw BodyLimits.ingestTooLarge((long) body.length);
        UnaryOperator<String> header = caseInsensitive(headers);
        SignatureCheck check = SourceSchemes.verify(source, header, body, clock);
        if (!check.valid()) throw ApiException.badSignature(check.reason());
        // any bytes the signature covers are the event (a Latin-1 form post, gzip, binary): kept and forwarded as sent
        String eventId = eventId(source, header, body);
        Instant now = clock.instant();
        var target = FanOutTarget.of(source.destination());
        if (target.isPresent()) return fanOut(source, target.get(), header, body, eventId, now, trace);
        InternalOneShots.Request req = InternalOneShots.Request.of(
                        source.tenant(),
                        Origin.source(source.id()),
                        source.destination(),
                        body,
                        contentType == null || contentType.isBlank() ? "application/octet-stream" : contentType)
                .withHeaders(forwarded(headers))
                .withDedupId(eventId);
        // committed with other requests' events in one transaction, answered after that commit
        InternalOneShots.Created c = store.inGroupCommit(tx -> InternalOneShots.create(tx, ids, req, now, trace));
        return new Answer(200, committed(source, eventId, c.deliveryId(), c.deduplicated()));
    }

    /**
     * A source whose destination is a fan-out target: the event, which must be JSON, becomes a message of the type
     * the target gives or the event names ({@link FanOutTarget#eventTypeOf}), sent to every subscribed endpoint. An
     * event that is not JSON, or names no event type, is refused with a 400 and writes nothing: the provider sees the
     * failure in its own delivery log.
     */
    private Answer fanOut(
            Source source,
            FanOutTarget target,
            UnaryOperator<String> header,
            byte[] body,
            String eventId,
            Instant now,
            dev.idem.core.TraceContext trace) {
        String text;
        JsonNode payload;
        try {
            text = StandardCharsets.UTF_8
                    .newDecoder()
                    .decode(java.nio.ByteBuffer.wrap(body))
                    .toString();
            payload = Json.MAPPER.readTree(text);
        } catch (IOException | RuntimeException notJson) {
            payload = null;
            text = null;
        }
        if (payload == null || payload.isMissingNode())
            throw ApiException.invalid(
                    "event_not_json",
                    "body",
                    "Source " + source.id()
                            + " sends each event as a message, whose payload is JSON; this body is not");
        String json = text;
        JsonNode tree = payload;
        String eventType = target.eventTypeOf(header, tree)
                .orElseThrow(() -> ApiException.invalid(
                        "event_type_missing",
                        "body",
                        "Source " + source.id() + " takes each event's type from " + target.eventTypeFrom()
                                + ", which this event does not give as an event type name"));
        InboundFanOut.Sent sent = store.inGroupCommit(tx -> InboundFanOut.send(
                tx, ids, source.tenant(), source.id(), target, eventType, json, tree, eventId, now, trace));
        ObjectNode o = committed(source, eventId, null, sent.deduplicated());
        o.put("message_id", sent.messageId());
        o.put("event_type", eventType);
        o.put("deliveries", sent.deliveries());
        return new Answer(200, o);
    }

    /** The answer to an event once committed (a test's hook runs first). */
    private static ObjectNode committed(Source source, String eventId, String deliveryId, boolean deduplicated) {
        Runnable hook = afterCommitForTests;
        if (hook != null) hook.run();
        ObjectNode o = Json.object();
        o.put("object", "ingest");
        o.put("source_id", source.id());
        o.put("event_id", eventId);
        o.put("delivery_id", deliveryId);
        o.put("deduplicated", deduplicated);
        return o;
    }

    /** Drops a kept source after its change on this node (other nodes see it within {@link SourceLookup#FRESH_FOR}). */
    void forget(String sourceId) {
        sources.forget(sourceId);
    }

    /** Longer event ids are kept as their SHA-256: a B-tree entry (the dedup reservation's key) has a size limit. */
    static final int MAX_EVENT_ID = 255;

    /**
     * The provider's event id per the source's {@code dedup}, or null (no dedup: every request is forwarded); one over
     * {@link #MAX_EVENT_ID} characters becomes {@code sha256:<hex>}.
     */
    static String eventId(Source source, UnaryOperator<String> header, byte[] body) {
        String id = rawEventId(source, header, body);
        if (id == null || id.length() <= MAX_EVENT_ID) return id;
        try {
            return "sha256:"
                    + java.util.HexFormat.of()
                            .formatHex(java.security.MessageDigest.getInstance("SHA-256")
                                    .digest(id.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available in this JDK", e);
        }
    }

    private static String rawEventId(Source source, UnaryOperator<String> header, byte[] body) {
        String how = source.dedup().equals("auto") ? SourceSchemes.autoDedup(source.scheme()) : source.dedup();
        if (how == null || how.equals("none")) return null;
        if (how.startsWith("header:")) {
            String v = header.apply(how.substring(7));
            return v == null || v.isBlank() ? null : v.trim();
        }
        try {
            JsonNode n = Json.MAPPER.readTree(body).at(JsonPointer.compile(how.substring(5)));
            return n.isValueNode() && !n.isNull() ? n.asText() : null;
        } catch (IOException | RuntimeException notJson) {
            return null;
        }
    }

    /** The provider's headers under {@code Idem-Source-Header-<name>}, minus those about the connection. */
    static Map<String, String> forwarded(Map<String, String> headers) {
        Map<String, String> out = new LinkedHashMap<>();
        headers.forEach((name, value) -> {
            String n = name.toLowerCase(Locale.ROOT);
            if (NOT_FORWARDED.contains(n) || WebhookHeaders.isHopByHop(n)) return;
            out.put(Origin.SOURCE_HEADER_PREFIX + name, value);
        });
        return out;
    }

    private static UnaryOperator<String> caseInsensitive(Map<String, String> headers) {
        Map<String, String> lower = new java.util.HashMap<>();
        headers.forEach((k, v) -> lower.put(k.toLowerCase(Locale.ROOT), v));
        return name -> lower.get(name.toLowerCase(Locale.ROOT));
    }

    /** The request's headers, a repeated name's values joined by ", " (as HTTP allows). */
    static Map<String, String> headersOf(io.javalin.http.Context ctx) {
        Map<String, String> out = new LinkedHashMap<>();
        var req = ctx.req();
        for (var names = req.getHeaderNames(); names.hasMoreElements(); ) {
            String name = names.nextElement();
            List<String> values = java.util.Collections.list(req.getHeaders(name));
            out.put(name, String.join(", ", values));
        }
        return out;
    }
}

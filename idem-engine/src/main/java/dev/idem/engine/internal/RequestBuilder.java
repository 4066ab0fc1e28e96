package dev.idem.engine.internal;

import dev.idem.core.Delivery;
import dev.idem.core.HeaderProfile;
import dev.idem.core.Origin;
import dev.idem.core.Schedule;
import dev.idem.core.ScheduleDefinition;
import dev.idem.core.Timing;
import dev.idem.wire.Envelope;
import dev.idem.wire.Rfc3339;
import dev.idem.wire.SigningSecret;
import dev.idem.wire.WebhookHeaders;
import dev.idem.wire.WebhookSigner;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Builds an attempt's body and headers (docs/wire.md). The body is the payload or raw body verbatim, else the
 * envelope; the signature covers exactly the bytes sent.
 */
public final class RequestBuilder {
    public static final String USER_AGENT = "idem/" + Version.VERSION;

    /**
     * @param attempt this attempt's 1-based number
     * @param secrets the active secrets, current first (a message's delivery: its endpoint's, else the tenant's); all
     *     sign during a rotation
     * @param now the attempt's time: {@code webhook-timestamp} and the envelope's {@code executed_at}
     */
    public DeliveryRequest build(
            Delivery delivery, Schedule schedule, int attempt, List<SigningSecret> secrets, Instant now) {
        ScheduleDefinition def = schedule.definition();
        byte[] body = body(delivery, schedule, attempt, now);
        long ts = now.getEpochSecond();
        String scheduledFor = Rfc3339.format(delivery.scheduledFor());

        Map<String, String> h = new LinkedHashMap<>();
        // the user's own headers first, so none of ours can be shadowed. Reserved and hop-by-hop names are refused at
        // create time; dropping them here too keeps a definition stored before a name was reserved from sending it.
        boolean fromSource = schedule.origin() != null && schedule.origin().kind() == Origin.Kind.SOURCE;
        boolean fromMessage = schedule.origin() != null && schedule.origin().kind() == Origin.Kind.MESSAGE;
        def.headers().forEach((k, v) -> {
            if (!WebhookHeaders.isReserved(k) && !k.equalsIgnoreCase(WebhookHeaders.CONTENT_TYPE)) h.put(k, v);
            // a source's event carries the provider's headers under a prefix of ours, which no user definition can hold
            else if (fromSource
                    && k.regionMatches(true, 0, Origin.SOURCE_HEADER_PREFIX, 0, Origin.SOURCE_HEADER_PREFIX.length()))
                h.put(k, v);
            // a test event's mark, put there by the fan-out's test (reserved: no user definition or endpoint holds it)
            else if (fromMessage && k.equalsIgnoreCase(WebhookHeaders.TEST)) h.put(WebhookHeaders.TEST, v);
        });
        h.put(WebhookHeaders.CONTENT_TYPE, def.contentType());
        h.put(WebhookHeaders.USER_AGENT, USER_AGENT);
        // a message's webhook-id is the message's, the same for every endpoint it goes to and every attempt
        String webhookId = delivery.ofMessage() ? delivery.messageId() : delivery.id();
        h.put(WebhookHeaders.WEBHOOK_ID, webhookId);
        h.put(WebhookHeaders.WEBHOOK_TIMESTAMP, Long.toString(ts));
        h.put(WebhookHeaders.WEBHOOK_SIGNATURE, WebhookSigner.sign(secrets, webhookId, ts, body));
        h.put(WebhookHeaders.IDEMPOTENCY_KEY, delivery.idempotencyKey());
        h.put(WebhookHeaders.SCHEDULE_ID, schedule.id());
        h.put(WebhookHeaders.DELIVERY_ID, delivery.id());
        h.put(WebhookHeaders.SCHEDULED_FOR, scheduledFor);
        h.put(WebhookHeaders.ATTEMPT, Integer.toString(attempt));
        h.put(WebhookHeaders.SEQUENCE, Long.toString(delivery.sequence()));
        if (def.eventType() != null) h.put(WebhookHeaders.EVENT_TYPE, def.eventType());
        // the creator's trace context (docs/tracing.md): the receiver's handler joins the trace that made the schedule
        if (schedule.trace() != null) {
            h.keySet()
                    .removeIf(k -> k.equalsIgnoreCase(WebhookHeaders.TRACEPARENT)
                            || k.equalsIgnoreCase(WebhookHeaders.TRACESTATE));
            h.put(WebhookHeaders.TRACEPARENT, schedule.trace().traceparent());
            if (schedule.trace().tracestate() != null)
                h.put(WebhookHeaders.TRACESTATE, schedule.trace().tracestate());
        }
        if (fromSource) h.put(Origin.SOURCE_ID_HEADER, schedule.origin().sourceId());
        if (delivery.ofMessage()) {
            h.put(WebhookHeaders.MESSAGE_ID, delivery.messageId());
            h.put(WebhookHeaders.ENDPOINT_ID, delivery.endpointId());
        }
        if (def.headerProfile() == HeaderProfile.RRULE) {
            h.put(WebhookHeaders.RRULE_EXECUTION_ID, delivery.id());
            h.put(WebhookHeaders.RRULE_SCHEDULED_FOR, scheduledFor);
            h.put(WebhookHeaders.RRULE_SCHEDULE_ID, schedule.id());
        } else if (def.headerProfile() == HeaderProfile.SCHEDSTACK) {
            h.put(WebhookHeaders.SCHED_DELIVERY_ID, delivery.id());
            h.put(WebhookHeaders.SCHED_ATTEMPT, Integer.toString(attempt));
            h.put(WebhookHeaders.SCHED_TIMESTAMP, Long.toString(ts));
            h.put(WebhookHeaders.SCHED_SIGNATURE, schedstackSignature(secrets.get(0), ts, body));
        }
        return new DeliveryRequest(def.endpoint(), h, body);
    }

    static byte[] body(Delivery delivery, Schedule schedule, int attempt, Instant now) {
        ScheduleDefinition def = schedule.definition();
        // the payload's text, or the body's bytes (decoded when stored as base64), byte for byte
        byte[] given = def.bodyBytes();
        if (given != null) return given;
        String executionId = def.headerProfile() == HeaderProfile.RRULE ? delivery.id() : null;
        return new Envelope(
                        schedule.id(),
                        delivery.id(),
                        delivery.scheduledFor(),
                        now,
                        attempt,
                        delivery.sequence(),
                        zoneOf(def.timing()),
                        def.eventType(),
                        def.timing().kind(),
                        def.timing().inputValue(),
                        executionId)
                .toJson();
    }

    /** The envelope's {@code timezone}: the rule's IANA zone, UTC for a one-shot. */
    static String zoneOf(Timing timing) {
        return timing instanceof Timing.Recurring r ? r.spec().timezone().getId() : "UTC";
    }

    /**
     * {@code Sched-Signature}: {@code sha256=} + lower-case hex HMAC-SHA256 with the current secret's key over
     * {@code <Sched-Timestamp>.<body>}.
     */
    static String schedstackSignature(SigningSecret secret, long ts, byte[] body) {
        try {
            byte[] key = Base64.getDecoder().decode(secret.reveal().substring(SigningSecret.PREFIX.length()));
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            mac.update((ts + ".").getBytes(StandardCharsets.UTF_8));
            return "sha256=" + HexFormat.of().formatHex(mac.doFinal(body));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available in this JDK", e);
        }
    }
}

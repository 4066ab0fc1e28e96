package dev.idem.wire;

import java.util.Locale;
import java.util.Set;

/** Header names of a delivery on the wire (docs/wire.md). */
public final class WebhookHeaders {
    public static final String WEBHOOK_ID = "webhook-id";
    public static final String WEBHOOK_TIMESTAMP = "webhook-timestamp";
    public static final String WEBHOOK_SIGNATURE = "webhook-signature";
    public static final String IDEMPOTENCY_KEY = "Idempotency-Key";
    public static final String SCHEDULE_ID = "Idem-Schedule-Id";
    public static final String DELIVERY_ID = "Idem-Delivery-Id";
    public static final String SCHEDULED_FOR = "Idem-Scheduled-For";
    public static final String ATTEMPT = "Idem-Attempt";
    public static final String SEQUENCE = "Idem-Sequence";
    public static final String EVENT_TYPE = "Idem-Event-Type";
    /** On a message's delivery to one of its endpoints: the message id (also its {@code webhook-id}). */
    public static final String MESSAGE_ID = "Idem-Message-Id";
    /** On a message's delivery: the endpoint it goes to. */
    public static final String ENDPOINT_ID = "Idem-Endpoint-Id";
    /** {@code true} on a test event sent to one endpoint on request (a portal's "send a test event"), else absent. */
    public static final String TEST = "Idem-Test";

    public static final String USER_AGENT = "User-Agent";
    public static final String CONTENT_TYPE = "Content-Type";
    /** W3C Trace Context: the trace a delivery belongs to, and the tracing systems' own state beside it. */
    public static final String TRACEPARENT = "traceparent";

    public static final String TRACESTATE = "tracestate";

    /** Profile {@code rrule}. */
    public static final String RRULE_EXECUTION_ID = "X-RRule-Execution-Id";

    public static final String RRULE_SCHEDULED_FOR = "X-RRule-Scheduled-For";
    public static final String RRULE_SCHEDULE_ID = "X-RRule-Schedule-Id";

    /** Profile {@code schedstack}. */
    public static final String SCHED_DELIVERY_ID = "Sched-Delivery-Id";

    public static final String SCHED_ATTEMPT = "Sched-Attempt";
    public static final String SCHED_TIMESTAMP = "Sched-Timestamp";
    public static final String SCHED_SIGNATURE = "Sched-Signature";

    private static final Set<String> RESERVED = Set.of(
                    WEBHOOK_ID,
                    WEBHOOK_TIMESTAMP,
                    WEBHOOK_SIGNATURE,
                    IDEMPOTENCY_KEY,
                    SCHEDULE_ID,
                    DELIVERY_ID,
                    SCHEDULED_FOR,
                    ATTEMPT,
                    SEQUENCE,
                    EVENT_TYPE,
                    MESSAGE_ID,
                    ENDPOINT_ID,
                    TEST,
                    USER_AGENT,
                    RRULE_EXECUTION_ID,
                    RRULE_SCHEDULED_FOR,
                    RRULE_SCHEDULE_ID,
                    SCHED_DELIVERY_ID,
                    SCHED_ATTEMPT,
                    SCHED_TIMESTAMP,
                    SCHED_SIGNATURE)
            .stream()
            .map(h -> h.toLowerCase(Locale.ROOT))
            .collect(java.util.stream.Collectors.toUnmodifiableSet());

    /**
     * Headers that describe one connection or its framing rather than the message (RFC 9110 section 7.6.1,
     * RFC 9112): the HTTP client sets them for each connection, and a proxy would strip them anyway.
     */
    private static final Set<String> HOP_BY_HOP = Set.of(
                    "Connection",
                    "Keep-Alive",
                    "Proxy-Connection",
                    "Proxy-Authenticate",
                    "Proxy-Authorization",
                    "TE",
                    "Trailer",
                    "Transfer-Encoding",
                    "Upgrade",
                    "Host",
                    "Content-Length",
                    "Expect",
                    "HTTP2-Settings")
            .stream()
            .map(h -> h.toLowerCase(Locale.ROOT))
            .collect(java.util.stream.Collectors.toUnmodifiableSet());

    private WebhookHeaders() {}

    /** True for a header a user may not set on a schedule: Idem owns it, or HTTP does ({@link #isHopByHop}). */
    public static boolean isReserved(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        return RESERVED.contains(n) || n.startsWith("idem-") || n.startsWith("webhook-") || HOP_BY_HOP.contains(n);
    }

    /** True for a connection-level header ({@code Connection}, {@code TE}, {@code Keep-Alive}, {@code Host}, …). */
    public static boolean isHopByHop(String name) {
        return HOP_BY_HOP.contains(name.toLowerCase(Locale.ROOT));
    }
}

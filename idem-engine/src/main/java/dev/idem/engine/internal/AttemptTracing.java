package dev.idem.engine.internal;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.idem.core.Delivery;
import dev.idem.core.Schedule;
import dev.idem.core.Timing;
import dev.idem.core.TraceContext;
import dev.idem.wire.WebhookHeaders;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.semconv.HttpAttributes;
import io.opentelemetry.semconv.ServerAttributes;
import io.opentelemetry.semconv.UrlAttributes;
import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The engine's spans (docs/tracing.md): each attempt a {@code CLIENT} span after OpenTelemetry's HTTP client
 * conventions, a child of the context stored with the schedule, so the {@code traceparent} it sends names the attempt
 * and the receiver's handler sits under it. A retry links to its delivery's first attempt.
 *
 * <p>{@link #off()} (the default) builds no span and changes no header: an attempt sends the stored context as is.
 */
public final class AttemptTracing {
    static final String SCOPE_NAME = "dev.idem.engine";
    static final AttributeKey<String> DELIVERY_ID = AttributeKey.stringKey("idem.delivery.id");
    static final AttributeKey<String> SCHEDULE_ID = AttributeKey.stringKey("idem.schedule.id");
    static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("idem.delivery.attempt");
    /**
     * First attempts' spans, by delivery id, for a retry's link. Kept in this node's memory: a retry made by another
     * node, or after a restart, has no link. A day and 100,000 deliveries bound it.
     */
    private static final int FIRST_ATTEMPTS_KEPT = 100_000;

    private static final TextMapGetter<Map<String, String>> MAP = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
            return carrier.keySet();
        }

        @Override
        public String get(Map<String, String> carrier, String key) {
            return carrier == null ? null : carrier.get(key);
        }
    };

    private final Tracer tracer;
    private final Cache<String, SpanContext> firstAttempts;

    private AttemptTracing(Tracer tracer) {
        this.tracer = tracer;
        this.firstAttempts = tracer == null
                ? null
                : Caffeine.newBuilder()
                        .maximumSize(FIRST_ATTEMPTS_KEPT)
                        .expireAfterWrite(Duration.ofDays(1))
                        .build();
    }

    /** No spans; attempts send the stored context unchanged. */
    public static AttemptTracing off() {
        return new AttemptTracing(null);
    }

    /** Spans through {@code openTelemetry}; null is {@link #off()}. */
    public static AttemptTracing of(OpenTelemetry openTelemetry) {
        return openTelemetry == null ? off() : new AttemptTracing(openTelemetry.getTracer(SCOPE_NAME));
    }

    /** Whether spans are made. */
    public boolean on() {
        return tracer != null;
    }

    /**
     * Starts attempt {@code attempt} of {@code d}: a {@code CLIENT} span whose parent is the schedule's stored context
     * (a new trace when it has none). Null when off.
     */
    AttemptSpan start(Delivery d, Schedule schedule, String endpoint, int attempt) {
        if (tracer == null) return null;
        SpanBuilder b = tracer.spanBuilder("POST")
                .setSpanKind(SpanKind.CLIENT)
                .setAttribute(HttpAttributes.HTTP_REQUEST_METHOD, "POST")
                .setAttribute(DELIVERY_ID, d.id())
                .setAttribute(SCHEDULE_ID, schedule.id())
                .setAttribute(ATTEMPT, (long) attempt);
        target(b, endpoint);
        SpanContext first = attempt > 1 ? firstAttempts.getIfPresent(d.id()) : null;
        if (attempt > 1) b.setAttribute(HttpAttributes.HTTP_REQUEST_RESEND_COUNT, (long) attempt - 1);
        Context creator = parentOf(schedule.trace());
        if (!(schedule.definition().timing() instanceof Timing.Recurring)) {
            b.setParent(creator);
        } else {
            // each occurrence its own trace, begun by its first attempt and linked to the schedule's creation; a
            // retry continues it under the first attempt
            SpanContext created = Span.fromContext(creator).getSpanContext();
            if (created.isValid()) b.addLink(created);
            if (first != null) b.setParent(Context.root().with(Span.wrap(first)));
            else b.setNoParent();
        }
        if (first != null) b.addLink(first);
        Span span = b.startSpan();
        if (attempt == 1) firstAttempts.put(d.id(), span.getSpanContext());
        return new AttemptSpan(span);
    }

    /** {@code request}'s headers with the attempt's {@code traceparent}/{@code tracestate} in place of the stored. */
    static DeliveryRequest withContextOf(AttemptSpan span, DeliveryRequest request) {
        Map<String, String> h = new LinkedHashMap<>(request.headers());
        h.keySet()
                .removeIf(k -> k.equalsIgnoreCase(WebhookHeaders.TRACEPARENT)
                        || k.equalsIgnoreCase(WebhookHeaders.TRACESTATE));
        W3CTraceContextPropagator.getInstance().inject(Context.root().with(span.span()), h, (c, k, v) -> c.put(k, v));
        return new DeliveryRequest(request.endpoint(), h, request.body());
    }

    private static Context parentOf(TraceContext stored) {
        if (stored == null) return Context.root();
        Map<String, String> carrier = new HashMap<>(2);
        carrier.put(WebhookHeaders.TRACEPARENT, stored.traceparent());
        if (stored.tracestate() != null) carrier.put(WebhookHeaders.TRACESTATE, stored.tracestate());
        return W3CTraceContextPropagator.getInstance().extract(Context.root(), carrier, MAP);
    }

    /**
     * {@code url.full} without what may be secret (user info, query, fragment), {@code server.address},
     * {@code server.port}; nothing for an endpoint that does not parse (its attempt fails before the wire).
     */
    private static void target(SpanBuilder b, String endpoint) {
        URI uri;
        try {
            uri = new URI(endpoint);
        } catch (java.net.URISyntaxException | NullPointerException e) {
            return;
        }
        String scheme = uri.getScheme();
        String host = uri.getHost();
        if (scheme == null || host == null) return;
        int port = uri.getPort() > 0 ? uri.getPort() : "https".equalsIgnoreCase(scheme) ? 443 : 80;
        String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        String shownHost = host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host;
        b.setAttribute(
                UrlAttributes.URL_FULL,
                scheme + "://" + shownHost + (uri.getPort() > 0 ? ":" + uri.getPort() : "") + path);
        b.setAttribute(
                ServerAttributes.SERVER_ADDRESS, host.startsWith("[") ? host.substring(1, host.length() - 1) : host);
        b.setAttribute(ServerAttributes.SERVER_PORT, (long) port);
    }
}

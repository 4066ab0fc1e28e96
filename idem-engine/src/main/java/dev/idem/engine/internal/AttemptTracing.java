package dev.idem.engine.internal;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.idem.core.Delivery;
import dev.idem.core.OccurrenceTracing;
import dev.idem.core.Schedule;
import dev.idem.core.Timing;
import dev.idem.core.TraceContext;
import dev.idem.core.store.DeliveryQueue.Claim;
import dev.idem.core.store.DeliveryTraceRepository.DeliveryTrace;
import dev.idem.core.store.Store;
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
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's spans (docs/tracing.md): each attempt a {@code CLIENT} span after OpenTelemetry's HTTP client
 * conventions, a child of the delivery's creation context (its occurrence's {@code create} span, else the context
 * stored with the schedule), so the {@code traceparent} it sends names the attempt and the receiver's handler sits
 * under it. A retry links to its delivery's first attempt, a replayed attempt to the replay request; both are read
 * from the store at the claim ({@link DeliveryTraceRepository}), so any node makes the same links. The occurrence and
 * claim spans are {@link QueueSpans}'.
 *
 * <p>{@link #off()} (the default) builds no span, reads and writes nothing and changes no header: an attempt sends the
 * stored context as is.
 */
public final class AttemptTracing {
    static final String SCOPE_NAME = "dev.idem.engine";
    static final AttributeKey<String> DELIVERY_ID = AttributeKey.stringKey("idem.delivery.id");
    static final AttributeKey<String> SCHEDULE_ID = AttributeKey.stringKey("idem.schedule.id");
    static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("idem.delivery.attempt");
    private static final Logger log = LoggerFactory.getLogger(AttemptTracing.class);
    /**
     * What the store keeps of claimed deliveries, by id, from the claim to the attempt's start. A claim given back
     * unattempted leaves its entry: a minute and 100,000 entries bound them.
     */
    private static final int CLAIMS_KEPT = 100_000;

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
    private final Store store;
    private final QueueSpans queueSpans;
    private final Cache<String, DeliveryTrace> claimed;
    /** First attempts' spans not yet written to the store: the recorder writes them before the outcomes. */
    private final ConcurrentLinkedQueue<Map.Entry<String, TraceContext>> firstAttempts = new ConcurrentLinkedQueue<>();

    private AttemptTracing(Tracer tracer, Store store, String node) {
        this.tracer = tracer;
        this.store = store;
        this.queueSpans = tracer == null ? null : new QueueSpans(tracer, node);
        this.claimed = tracer == null
                ? null
                : Caffeine.newBuilder()
                        .maximumSize(CLAIMS_KEPT)
                        .expireAfterWrite(Duration.ofMinutes(1))
                        .build();
    }

    /** No spans; attempts send the stored context unchanged. */
    public static AttemptTracing off() {
        return new AttemptTracing(null, null, null);
    }

    /**
     * Spans through {@code openTelemetry}, links kept in {@code store} (null: none read or kept, so a retry has no
     * link); null {@code openTelemetry} is {@link #off()}.
     */
    public static AttemptTracing of(OpenTelemetry openTelemetry, Store store, String node) {
        return openTelemetry == null ? off() : new AttemptTracing(openTelemetry.getTracer(SCOPE_NAME), store, node);
    }

    /** As {@link #of(OpenTelemetry, Store, String)} without a store. */
    public static AttemptTracing of(OpenTelemetry openTelemetry) {
        return of(openTelemetry, null, null);
    }

    /** Whether spans are made. */
    public boolean on() {
        return tracer != null;
    }

    /** What gives the materialiser's occurrences their {@code create} spans: {@link OccurrenceTracing#NONE} when off. */
    public OccurrenceTracing occurrences() {
        return tracer == null ? OccurrenceTracing.NONE : queueSpans;
    }

    /**
     * After a claim that began at {@code startedAt} took {@code claims}: reads what the store keeps of them (their
     * occurrence, first attempt and replay spans, for their attempts) and makes the claim's {@code receive} span.
     * Nothing when off or when nothing was claimed.
     */
    public void claimed(List<Claim> claims, Instant startedAt) {
        if (tracer == null || claims.isEmpty()) return;
        Instant endedAt = Instant.now();
        Map<String, DeliveryTrace> kept = Map.of();
        if (store != null) {
            List<String> ids = new ArrayList<>(claims.size());
            for (Claim c : claims) ids.add(c.delivery().id());
            try {
                kept = store.inReadTransaction(tx -> tx.deliveryTraces().find(ids));
            } catch (RuntimeException e) {
                // the attempts go out all the same, their spans without the links the store keeps
                log.warn("reading the trace links of {} claimed deliveries failed: {}", ids.size(), e.toString());
            }
            claimed.putAll(kept);
        }
        queueSpans.claimed(claims, kept, startedAt, endedAt);
    }

    /**
     * Writes the first attempts' spans started since the last call (the recorder calls it before writing outcomes, so
     * a retry claimed after an outcome finds its first attempt's span). Nothing when off.
     */
    public void keepFirstAttempts() {
        if (tracer == null || store == null || firstAttempts.isEmpty()) return;
        Map<String, TraceContext> batch = new HashMap<>();
        for (Map.Entry<String, TraceContext> e; (e = firstAttempts.poll()) != null; )
            batch.put(e.getKey(), e.getValue());
        try {
            store.useTransaction(tx -> tx.deliveryTraces().firstAttempts(batch));
        } catch (RuntimeException e) {
            // the retries of these deliveries will have no link to their first attempt: not worth an outcome
            log.warn("keeping the first attempt spans of {} deliveries failed: {}", batch.size(), e.toString());
        }
    }

    /**
     * Starts attempt {@code attempt} of {@code d}: a {@code CLIENT} span whose parent is the delivery's creation
     * context (a new trace when it has none). Null when off.
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
        DeliveryTrace kept = claimed.asMap().remove(d.id());
        if (kept == null) kept = DeliveryTrace.NONE;
        SpanContext first = attempt > 1 ? spanOf(kept.firstAttempt()) : SpanContext.getInvalid();
        if (attempt > 1) b.setAttribute(HttpAttributes.HTTP_REQUEST_RESEND_COUNT, (long) attempt - 1);
        SpanContext occurrence = spanOf(kept.occurrence());
        SpanContext created = spanOf(schedule.trace());
        if (occurrence.isValid()) {
            // the materialiser's create span: the occurrence's own trace begins there
            b.setParent(contextOf(occurrence));
        } else if (!(schedule.definition().timing() instanceof Timing.Recurring)) {
            b.setParent(created.isValid() ? contextOf(created) : Context.root());
        } else {
            // an occurrence written without a create span (with the schedule, or while tracing was off): its trace
            // begins at its first attempt, linked to the schedule's creation; a retry continues it under that attempt
            if (created.isValid()) b.addLink(created, QueueSpans.link("creation"));
            if (first.isValid()) b.setParent(contextOf(first));
            else b.setNoParent();
        }
        if (first.isValid()) b.addLink(first, QueueSpans.link("first_attempt"));
        SpanContext replay = spanOf(kept.replay());
        if (d.replayed() && replay.isValid()) b.addLink(replay, QueueSpans.link("replay"));
        Span span = b.startSpan();
        // a disabled SDK (OTEL_SDK_DISABLED) makes spans without a context: nothing to link to later
        if (attempt == 1 && store != null && span.getSpanContext().isValid())
            firstAttempts.add(Map.entry(d.id(), traceContextOf(span.getSpanContext())));
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

    /** The span a stored context names; invalid for null. */
    static SpanContext spanOf(TraceContext stored) {
        if (stored == null) return SpanContext.getInvalid();
        Map<String, String> carrier = new HashMap<>(2);
        carrier.put(WebhookHeaders.TRACEPARENT, stored.traceparent());
        if (stored.tracestate() != null) carrier.put(WebhookHeaders.TRACESTATE, stored.tracestate());
        return Span.fromContext(W3CTraceContextPropagator.getInstance().extract(Context.root(), carrier, MAP))
                .getSpanContext();
    }

    static Context contextOf(SpanContext span) {
        return Context.root().with(Span.wrap(span));
    }

    /** {@code span}'s {@code traceparent}, to keep. */
    static TraceContext traceContextOf(SpanContext span) {
        Map<String, String> carrier = new HashMap<>(2);
        W3CTraceContextPropagator.getInstance().inject(contextOf(span), carrier, (c, k, v) -> c.put(k, v));
        return TraceContext.fromHeaders(carrier.get(WebhookHeaders.TRACEPARENT), null)
                .orElse(null);
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

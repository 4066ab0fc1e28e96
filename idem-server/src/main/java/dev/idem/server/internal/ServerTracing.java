package dev.idem.server.internal;

import dev.idem.core.TraceContext;
import dev.idem.wire.WebhookHeaders;
import io.javalin.http.Context;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.semconv.ErrorAttributes;
import io.opentelemetry.semconv.HttpAttributes;
import io.opentelemetry.semconv.UrlAttributes;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The node's spans and the trace context it keeps with what it creates (docs/tracing.md).
 *
 * <p>Off (the default, {@link #off()}), nothing is traced and no span is made: a request's own {@code traceparent} and
 * {@code tracestate} are kept as sent, so its deliveries pass them on unchanged. On, each API request is a
 * {@code SERVER} span continuing the caller's context (OpenTelemetry's HTTP server conventions), work inside it
 * (creation, a source's ingest) an {@code INTERNAL} child span, and what is kept is the context of that child: the
 * receiver's handler then shows under Idem's work in the creator's trace.
 */
public final class ServerTracing {
    static final String SCOPE_NAME = "dev.idem.server";
    private static final String SPAN = ServerTracing.class.getName() + ".span";
    private static final String SCOPE = ServerTracing.class.getName() + ".scope";

    /** {@code idem.*} attributes: what the HTTP conventions have no name for. */
    static final AttributeKey<String> SOURCE_ID = AttributeKey.stringKey("idem.source.id");

    private static final TextMapGetter<Context> HEADERS = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Context ctx) {
            return ctx.headerMap().keySet();
        }

        @Override
        public String get(Context ctx, String key) {
            return ctx == null ? null : ctx.header(key);
        }
    };

    private final OpenTelemetry openTelemetry;
    private final Tracer tracer;
    private final TextMapPropagator propagator;

    private ServerTracing(OpenTelemetry openTelemetry) {
        this.openTelemetry = openTelemetry;
        this.tracer = openTelemetry == null ? null : openTelemetry.getTracer(SCOPE_NAME);
        this.propagator =
                openTelemetry == null ? null : openTelemetry.getPropagators().getTextMapPropagator();
    }

    /** No spans; creators' contexts are kept as they came. */
    public static ServerTracing off() {
        return new ServerTracing(null);
    }

    /** Spans through {@code openTelemetry}, which the caller configured (the CLI's {@code --otel}) and closes. */
    public static ServerTracing of(OpenTelemetry openTelemetry) {
        return new ServerTracing(openTelemetry);
    }

    /** What the engine traces its attempts through: null when off. */
    public OpenTelemetry openTelemetry() {
        return openTelemetry;
    }

    boolean on() {
        return tracer != null;
    }

    /** Starts the request's {@code SERVER} span, current until {@link #end}. */
    void begin(Context ctx) {
        if (tracer == null) return;
        io.opentelemetry.context.Context parent =
                propagator.extract(io.opentelemetry.context.Context.root(), ctx, HEADERS);
        String method = ctx.method().name();
        Span span = tracer.spanBuilder(method)
                .setParent(parent)
                .setSpanKind(SpanKind.SERVER)
                .setAttribute(HttpAttributes.HTTP_REQUEST_METHOD, method)
                .setAttribute(UrlAttributes.URL_PATH, ctx.path())
                .setAttribute(UrlAttributes.URL_SCHEME, ctx.scheme())
                .startSpan();
        ctx.attribute(SPAN, span);
        ctx.attribute(SCOPE, span.makeCurrent());
    }

    /**
     * Ends the request's span: named {@code <method> <route>} once the route is known, with the status code; a 5xx
     * is an error (a 4xx is the caller's, not the server's, as the HTTP server conventions say).
     */
    void end(Context ctx) {
        Span span = ctx.attribute(SPAN);
        if (span == null) return;
        Scope scope = ctx.attribute(SCOPE);
        io.javalin.router.Endpoint endpoint = ctx.endpoints().lastHttpEndpoint();
        String route = endpoint == null ? null : endpoint.path;
        int status = ctx.statusCode();
        if (route != null && !route.isEmpty() && !route.equals("*")) {
            span.updateName(ctx.method().name() + " " + route);
            span.setAttribute(HttpAttributes.HTTP_ROUTE, route);
        }
        span.setAttribute(HttpAttributes.HTTP_RESPONSE_STATUS_CODE, (long) status);
        if (status >= 500) {
            span.setStatus(StatusCode.ERROR);
            span.setAttribute(ErrorAttributes.ERROR_TYPE, Integer.toString(status));
        }
        if (scope != null) scope.close();
        span.end();
        ctx.attribute(SPAN, null);
        ctx.attribute(SCOPE, null);
    }

    /** Runs {@code work} in an {@code INTERNAL} span named {@code name} (directly when off). */
    <T> T inSpan(String name, Supplier<T> work) {
        if (tracer == null) return work.get();
        Span span = tracer.spanBuilder(name).setSpanKind(SpanKind.INTERNAL).startSpan();
        try (Scope ignored = span.makeCurrent()) {
            return work.get();
        } catch (RuntimeException e) {
            span.recordException(e);
            span.setStatus(StatusCode.ERROR);
            throw e;
        } finally {
            span.end();
        }
    }

    /** Sets an attribute on the current span (nothing when off). */
    void attribute(AttributeKey<String> key, String value) {
        if (tracer != null && value != null) Span.current().setAttribute(key, value);
    }

    /**
     * The context to keep with what this request creates: the current span's when on, else the request's own
     * {@code traceparent}/{@code tracestate} as sent (none, or a malformed one: nothing).
     */
    TraceContext creatorContext(Context ctx) {
        if (tracer == null)
            return TraceContext.fromHeaders(
                            ctx.header(WebhookHeaders.TRACEPARENT), ctx.header(WebhookHeaders.TRACESTATE))
                    .orElse(null);
        return currentContext();
    }

    /**
     * The current span's context, kept for a later span to link to (a replay request, which the replayed attempt links
     * to); null when off: no span links to anything then.
     */
    TraceContext linkContext() {
        return tracer == null ? null : currentContext();
    }

    private static TraceContext currentContext() {
        Map<String, String> carrier = new HashMap<>(2);
        W3CTraceContextPropagator.getInstance()
                .inject(io.opentelemetry.context.Context.current(), carrier, (c, k, v) -> c.put(k, v));
        return TraceContext.fromHeaders(carrier.get(WebhookHeaders.TRACEPARENT), carrier.get(WebhookHeaders.TRACESTATE))
                .orElse(null);
    }
}

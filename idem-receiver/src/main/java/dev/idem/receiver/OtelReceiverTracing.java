package dev.idem.receiver;

import dev.idem.wire.WebhookHeaders;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * The span around one received webhook. Loaded only when the OpenTelemetry API is on the class path: nothing else
 * in the SDK names an OpenTelemetry type outside this class and {@link OpenTelemetryTracing}.
 *
 * <p>Attributes follow OpenTelemetry's messaging conventions (a delivery is a message consumed and processed):
 * kind CONSUMER, name {@code process} (+ the event type, its destination, when the sender names one),
 * {@code messaging.system=idem}, {@code messaging.operation.name}/{@code .type=process},
 * {@code messaging.message.id} = {@code webhook-id}; Idem's own: {@code idem.inbox.outcome},
 * {@code idem.idempotency_key}, {@code idem.delivery.attempt}.
 */
final class OtelReceiverTracing extends ReceiverTracing {
    static final String SCOPE = "dev.idem.receiver";
    static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("idem.inbox.outcome");
    static final AttributeKey<String> KEY = AttributeKey.stringKey("idem.idempotency_key");
    static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("idem.delivery.attempt");
    static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
    static final AttributeKey<String> OPERATION_NAME = AttributeKey.stringKey("messaging.operation.name");
    static final AttributeKey<String> OPERATION_TYPE = AttributeKey.stringKey("messaging.operation.type");
    static final AttributeKey<String> MESSAGE_ID = AttributeKey.stringKey("messaging.message.id");
    static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");

    private static final TextMapGetter<Function<String, String>> HEADERS = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Function<String, String> carrier) {
            // the W3C propagators look their headers up by name; nothing here can list a request's headers
            return List.of();
        }

        @Override
        public String get(Function<String, String> carrier, String key) {
            return carrier == null ? null : carrier.apply(key);
        }
    };

    /**
     * Whether this API has {@code GlobalOpenTelemetry.isSet()}; older ones (an application may pin one, Spring Boot
     * 4.0 does) lack it, and there the global is read with {@code get()}, which registers a no-op if nothing is set.
     */
    private static final boolean IS_SET = hasIsSet();

    /** Null: whatever GlobalOpenTelemetry holds at each request. */
    private final OpenTelemetry fixed;

    private volatile Resolved resolved;

    private OtelReceiverTracing(OpenTelemetry fixed) {
        this.fixed = fixed;
    }

    static ReceiverTracing global() {
        return new OtelReceiverTracing(null);
    }

    static ReceiverTracing of(OpenTelemetry otel) {
        return new OtelReceiverTracing(otel);
    }

    @Override
    Receipt trace(Function<String, String> headers, Traced work) throws Exception {
        OpenTelemetry otel = fixed;
        if (otel == null) {
            // isSet, not get: get() would register a no-op and make the application's later set() fail
            if (IS_SET && !GlobalOpenTelemetry.isSet()) return work.run();
            otel = GlobalOpenTelemetry.get();
        }
        Resolved r = resolve(otel);
        Context parent = Context.current();
        // a framework that already continued the traceparent (Spring Boot's observation filter) made its server
        // span current: the handler's span is its child; else the delivery's own header is the parent
        if (!Span.fromContext(parent).getSpanContext().isValid()) {
            parent = otel.getPropagators().getTextMapPropagator().extract(parent, headers, HEADERS);
        }
        String eventType = headers.apply(WebhookHeaders.EVENT_TYPE);
        var builder = r.tracer
                .spanBuilder(eventType == null ? "process" : "process " + eventType)
                .setParent(parent)
                .setSpanKind(SpanKind.CONSUMER)
                .setAttribute(SYSTEM, "idem")
                .setAttribute(OPERATION_NAME, "process")
                .setAttribute(OPERATION_TYPE, "process");
        String id = headers.apply(WebhookHeaders.WEBHOOK_ID);
        if (id != null) builder.setAttribute(MESSAGE_ID, id);
        if (eventType != null) builder.setAttribute(DESTINATION, eventType);
        Long attempt = attempt(headers.apply(WebhookHeaders.ATTEMPT));
        if (attempt != null) builder.setAttribute(ATTEMPT, attempt);
        Span span = builder.startSpan();
        try (Scope ignored = span.makeCurrent()) {
            Receipt receipt = work.run();
            span.setAttribute(KEY, receipt.key());
            span.setAttribute(OUTCOME, receipt.status().name().toLowerCase(Locale.ROOT));
            if (receipt.status() == Receipt.Status.UNAVAILABLE) span.setStatus(StatusCode.ERROR, receipt.reason());
            return receipt;
        } catch (Exception | Error e) {
            span.setAttribute(OUTCOME, "failed");
            span.setStatus(StatusCode.ERROR, e.getClass().getSimpleName());
            span.recordException(e);
            throw e;
        } finally {
            span.end();
        }
    }

    private Resolved resolve(OpenTelemetry otel) {
        Resolved r = resolved;
        if (r == null || r.otel != otel) {
            r = new Resolved(otel, otel.getTracer(SCOPE));
            resolved = r;
        }
        return r;
    }

    private static boolean hasIsSet() {
        try {
            GlobalOpenTelemetry.class.getMethod("isSet");
            return true;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    private static Long attempt(String header) {
        if (header == null) return null;
        try {
            return Long.parseLong(header.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private record Resolved(OpenTelemetry otel, Tracer tracer) {}
}

package dev.idem.engine.internal;

import dev.idem.core.OccurrenceTracing;
import dev.idem.core.Schedule;
import dev.idem.core.Timing;
import dev.idem.core.TraceContext;
import dev.idem.core.store.DeliveryQueue.Claim;
import dev.idem.core.store.DeliveryTraceRepository.DeliveryTrace;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The spans of Idem's queue, after OpenTelemetry's messaging conventions (docs/tracing.md): a delivery is a message, the
 * materialiser its producer, a claim its consumer's pull. Each occurrence the materialiser writes is a {@code create}
 * span ({@code PRODUCER}): for a recurring schedule the root of the occurrence's own trace, linked to the schedule's
 * creation; for a one-shot (a scheduled fan-out's single occurrence) a child of it. Each claim that took deliveries is
 * a {@code receive} span ({@code CLIENT}) of its own trace, linked to each claimed delivery's creation context.
 */
final class QueueSpans implements OccurrenceTracing {
    static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
    static final AttributeKey<String> OPERATION_NAME = AttributeKey.stringKey("messaging.operation.name");
    static final AttributeKey<String> OPERATION_TYPE = AttributeKey.stringKey("messaging.operation.type");
    static final AttributeKey<String> MESSAGE_ID = AttributeKey.stringKey("messaging.message.id");
    static final AttributeKey<Long> BATCH_COUNT = AttributeKey.longKey("messaging.batch.message_count");
    static final AttributeKey<String> SCHEDULED_FOR = AttributeKey.stringKey("idem.occurrence.scheduled_for");
    static final AttributeKey<String> NODE = AttributeKey.stringKey("idem.node.id");
    /** What a link stands for: {@code creation}, {@code first_attempt} or {@code replay}. */
    static final AttributeKey<String> LINK = AttributeKey.stringKey("idem.link");

    private final Tracer tracer;
    private final String node;

    QueueSpans(Tracer tracer, String node) {
        this.tracer = tracer;
        this.node = node;
    }

    @Override
    public TraceContext occurrence(Schedule schedule, Instant scheduledFor, String messageId) {
        SpanBuilder b = messaging("create")
                .setSpanKind(SpanKind.PRODUCER)
                .setAttribute(MESSAGE_ID, messageId)
                .setAttribute(AttemptTracing.SCHEDULE_ID, schedule.id())
                .setAttribute(SCHEDULED_FOR, scheduledFor.toString());
        SpanContext created = AttemptTracing.spanOf(schedule.trace());
        if (schedule.definition().timing() instanceof Timing.Recurring) {
            // each occurrence a trace of its own: one trace a day for a year is no trace anyone can read
            b.setNoParent();
            if (created.isValid()) b.addLink(created, link("creation"));
        } else if (created.isValid()) b.setParent(AttemptTracing.contextOf(created));
        else b.setNoParent();
        Span span = b.startSpan();
        span.end();
        return AttemptTracing.traceContextOf(span.getSpanContext());
    }

    /**
     * The span of a claim that took {@code claims}, begun at {@code startedAt} and ended at {@code endedAt}, linked to
     * each delivery's creation context: its occurrence's {@code create} span, else the schedule's stored context.
     */
    void claimed(List<Claim> claims, Map<String, DeliveryTrace> kept, Instant startedAt, Instant endedAt) {
        SpanBuilder b = messaging("receive")
                .setSpanKind(SpanKind.CLIENT)
                .setNoParent()
                .setStartTimestamp(startedAt)
                .setAttribute(BATCH_COUNT, (long) claims.size())
                .setAttribute(NODE, node);
        for (Claim c : claims) {
            DeliveryTrace t = kept.getOrDefault(c.delivery().id(), DeliveryTrace.NONE);
            SpanContext creation = AttemptTracing.spanOf(
                    t.occurrence() != null ? t.occurrence() : c.schedule().trace());
            if (creation.isValid())
                b.addLink(creation, Attributes.of(MESSAGE_ID, c.delivery().id(), LINK, "creation"));
        }
        b.startSpan().end(endedAt);
    }

    private SpanBuilder messaging(String operation) {
        return tracer.spanBuilder(operation)
                .setAttribute(SYSTEM, "idem")
                .setAttribute(OPERATION_NAME, operation)
                .setAttribute(OPERATION_TYPE, operation);
    }

    static Attributes link(String what) {
        return Attributes.of(LINK, what);
    }
}

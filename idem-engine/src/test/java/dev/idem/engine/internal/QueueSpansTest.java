package dev.idem.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.IdGenerator;
import dev.idem.core.OccurrenceTracing;
import dev.idem.core.Schedule;
import dev.idem.core.TraceContext;
import dev.idem.core.store.DeliveryQueue.Claim;
import dev.idem.core.store.DeliveryTraceRepository.DeliveryTrace;
import dev.idem.core.store.Store;
import dev.idem.engine.testing.Defs;
import dev.idem.engine.testing.World;
import dev.idem.store.testing.TestStores;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The materialiser's {@code create} spans and the claim's {@code receive} span (docs/tracing.md), on a real SQLite
 * store: each occurrence of a recurring schedule begins a trace of its own, linked to the schedule's creation, kept
 * with its delivery so that its attempts, on whichever node, continue it.
 */
class QueueSpansTest {
    private static final Instant T0 = Instant.parse("2026-03-10T17:00:00Z");
    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String CREATOR_SPAN = "00f067aa0ba902b7";
    private static final String ENDPOINT = "http://127.0.0.1:9/hook";

    @TempDir
    Path dir;

    private final InMemoryTracing sdk = new InMemoryTracing();
    private final Clock clock = Clock.fixed(T0.plusSeconds(1), ZoneOffset.UTC);
    private Store store;

    @AfterEach
    void close() {
        if (store != null) store.close();
        sdk.close();
    }

    /** An hourly schedule from {@code T0}, made by a request in trace {@code TRACE_ID}. */
    @BeforeEach
    void hourly() {
        store = TestStores.sqlite(dir, clock);
        new World(store, clock);
        Schedule s = Defs.schedule("sch_1", Defs.TENANT, Defs.hourly(ENDPOINT, T0, "UTC"), T0)
                .withTrace(new TraceContext("00-" + TRACE_ID + "-" + CREATOR_SPAN + "-01", null));
        store.useTransaction(tx -> tx.schedules().insertAll(List.of(s)));
    }

    /** The schedule's occurrences to {@code T0 + 2h}. */
    private int materialise(OccurrenceTracing tracing) {
        return new Materialiser(
                        store,
                        new IdGenerator(clock, new SecureRandom()),
                        clock,
                        Duration.ofHours(2),
                        () -> {},
                        Materialiser.PAGE,
                        tracing)
                .runOnce();
    }

    @Test
    void eachOccurrenceBeginsATraceOfItsOwnLinkedToTheCreationAndItsClaimAndAttemptFollowIt() {
        AttemptTracing tracing = AttemptTracing.of(sdk.otel(), store, "node-a");
        assertThat(materialise(tracing.occurrences())).isEqualTo(3);

        List<SpanData> creates = sdk.named("create");
        assertThat(creates).hasSize(3).allSatisfy(c -> {
            assertThat(c.getKind()).isEqualTo(SpanKind.PRODUCER);
            assertThat(c.getParentSpanContext().isValid()).isFalse();
            assertThat(c.getAttributes().get(QueueSpans.OPERATION_TYPE)).isEqualTo("create");
            assertThat(c.getLinks()).singleElement().satisfies(l -> {
                assertThat(l.getSpanContext().getTraceId()).isEqualTo(TRACE_ID);
                assertThat(l.getSpanContext().getSpanId()).isEqualTo(CREATOR_SPAN);
                assertThat(l.getAttributes().get(QueueSpans.LINK)).isEqualTo("creation");
            });
        });
        Set<String> traces = creates.stream().map(SpanData::getTraceId).collect(Collectors.toSet());
        assertThat(traces).hasSize(3).doesNotContain(TRACE_ID);
        // kept with each delivery, for whichever node attempts it
        Set<String> deliveries = creates.stream()
                .map(c -> c.getAttributes().get(QueueSpans.MESSAGE_ID))
                .collect(Collectors.toSet());
        Map<String, DeliveryTrace> kept =
                store.inReadTransaction(tx -> tx.deliveryTraces().find(deliveries));
        for (SpanData c : creates)
            assertThat(kept.get(c.getAttributes().get(QueueSpans.MESSAGE_ID))
                            .occurrence()
                            .traceparent())
                    .startsWith("00-" + c.getTraceId() + "-" + c.getSpanId() + "-");

        List<Claim> claims = store.queue().claimDue("node-a", Duration.ofSeconds(60), 10);
        assertThat(claims).hasSize(1); // the occurrence at T0; the others are not due
        Claim claim = claims.get(0);
        SpanData create = creates.stream()
                .filter(c -> claim.delivery().id().equals(c.getAttributes().get(QueueSpans.MESSAGE_ID)))
                .findFirst()
                .orElseThrow();
        tracing.claimed(claims, Instant.now());
        assertThat(sdk.named("receive")).singleElement().satisfies(r -> {
            assertThat(r.getKind()).isEqualTo(SpanKind.CLIENT);
            assertThat(r.getParentSpanContext().isValid()).isFalse();
            assertThat(r.getAttributes().get(QueueSpans.BATCH_COUNT)).isEqualTo(1L);
            assertThat(r.getLinks()).singleElement().satisfies(l -> linksTo(l, create));
        });

        tracing.start(claim.delivery(), claim.schedule(), ENDPOINT, 1).aborted();
        assertThat(sdk.named("POST")).singleElement().satisfies(a -> {
            assertThat(a.getTraceId()).isEqualTo(create.getTraceId());
            assertThat(a.getParentSpanId()).isEqualTo(create.getSpanId());
        });
    }

    @Test
    void theOccurrencesWrittenWithTheirScheduleGetTheirCreateSpansToo() {
        AttemptTracing tracing = AttemptTracing.of(sdk.otel(), store, "node-a");
        var creation = new dev.idem.core.creation.ScheduleCreation(
                new IdGenerator(clock, new SecureRandom()), Duration.ofHours(2), tracing.occurrences());
        TraceContext request = new TraceContext("00-" + TRACE_ID + "-" + CREATOR_SPAN + "-01", null);
        store.useTransaction(tx -> creation.create(
                tx,
                Defs.TENANT,
                List.of(new dev.idem.core.creation.ScheduleCreation.Request(
                        Defs.hourly(ENDPOINT, T0.plusSeconds(60), "UTC"), null, request)),
                clock.instant()));

        List<SpanData> creates = sdk.named("create");
        assertThat(creates)
                .hasSize(2)
                .allSatisfy(c -> assertThat(c.getLinks())
                        .singleElement()
                        .satisfies(
                                l -> assertThat(l.getSpanContext().getSpanId()).isEqualTo(CREATOR_SPAN)));
        Set<String> deliveries = creates.stream()
                .map(c -> c.getAttributes().get(QueueSpans.MESSAGE_ID))
                .collect(Collectors.toSet());
        Map<String, DeliveryTrace> kept =
                store.inReadTransaction(tx -> tx.deliveryTraces().find(deliveries));
        assertThat(kept)
                .hasSize(2)
                .allSatisfy((id, t) -> assertThat(t.occurrence()).isNotNull());
    }

    @Test
    void offTheMaterialiserMakesNoSpanAndKeepsNothing() {
        AttemptTracing off = AttemptTracing.off();
        assertThat(off.occurrences()).isSameAs(OccurrenceTracing.NONE);
        assertThat(materialise(off.occurrences())).isEqualTo(3);

        List<Claim> claims = store.queue().claimDue("node-a", Duration.ofSeconds(60), 10);
        off.claimed(claims, Instant.now());
        assertThat(sdk.spans()).isEmpty();
        Set<String> ids =
                store.inReadTransaction(tx -> tx.deliveries().list(Defs.TENANT, "sch_1", null, 10, null).data().stream()
                        .map(d -> d.id())
                        .collect(Collectors.toSet()));
        assertThat(ids).hasSize(3);
        Map<String, DeliveryTrace> kept =
                store.inReadTransaction(tx -> tx.deliveryTraces().find(ids));
        assertThat(kept).isEmpty();
    }

    @Test
    void aDisabledSdkMakesSpansWithoutContextAndNothingIsKept() {
        // what --otel with OTEL_SDK_DISABLED=true hands the engine: a tracer whose spans have no context
        AttemptTracing tracing = AttemptTracing.of(io.opentelemetry.api.OpenTelemetry.noop(), store, "node-a");
        assertThat(materialise(tracing.occurrences())).isEqualTo(3);
        List<Claim> claims = store.queue().claimDue("node-a", Duration.ofSeconds(60), 10);
        tracing.claimed(claims, Instant.now());
        tracing.start(claims.get(0).delivery(), claims.get(0).schedule(), ENDPOINT, 1)
                .aborted();
        tracing.keepFirstAttempts();

        Set<String> ids =
                store.inReadTransaction(tx -> tx.deliveries().list(Defs.TENANT, "sch_1", null, 10, null).data().stream()
                        .map(d -> d.id())
                        .collect(Collectors.toSet()));
        Map<String, DeliveryTrace> kept =
                store.inReadTransaction(tx -> tx.deliveryTraces().find(ids));
        assertThat(kept).isEmpty();
    }

    private static void linksTo(LinkData link, SpanData span) {
        assertThat(link.getSpanContext().getSpanId()).isEqualTo(span.getSpanId());
        assertThat(link.getSpanContext().getTraceId()).isEqualTo(span.getTraceId());
    }
}

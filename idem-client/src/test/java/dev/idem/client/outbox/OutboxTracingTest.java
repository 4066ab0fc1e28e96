package dev.idem.client.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.client.IdemClient;
import dev.idem.client.IdemClientConfig;
import dev.idem.client.RequestOptions;
import dev.idem.client.model.ScheduleCreate;
import dev.idem.client.testing.AppDatabase;
import dev.idem.client.testing.ScriptedServer;
import dev.idem.client.testing.ScriptedServer.Answer;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.file.Path;
import java.sql.Connection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client sends the caller's trace context; the outbox keeps the producer's with the row so the relay's later
 * call continues the producer's trace, not the relay's. Against a loopback server that records the headers.
 */
class OutboxTracingTest {
    static final String SCHEDULE =
            "{\"id\":\"sch_1\",\"object\":\"schedule\",\"status\":\"active\",\"endpoint\":\"https://example.com/x\"}";

    @TempDir
    Path dir;

    final ScriptedServer server = newServer();
    final OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder()
                    .addSpanProcessor(SimpleSpanProcessor.create(InMemorySpanExporter.create()))
                    .build())
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
            .build();
    final Tracer tracer = otel.getTracer("test-app");
    AppDatabase db;

    @BeforeEach
    void register() {
        GlobalOpenTelemetry.resetForTest();
        GlobalOpenTelemetry.set(otel);
        server.then(Answer.of(201, SCHEDULE));
    }

    @AfterEach
    void close() {
        GlobalOpenTelemetry.resetForTest();
        otel.close();
        server.close();
        if (db != null) db.close();
    }

    IdemClient client() {
        return IdemClient.create(IdemClientConfig.builder(server.url())
                .apiKey("sk_test_x")
                .maxAttempts(1)
                .build());
    }

    static ScheduleCreate create() {
        return ScheduleCreate.builder("https://example.com/x").build();
    }

    static String traceparent(Span span) {
        return "00-" + span.getSpanContext().getTraceId() + "-"
                + span.getSpanContext().getSpanId() + "-"
                + span.getSpanContext().getTraceFlags().asHex();
    }

    @Test
    void aCallInsideASpanCarriesThatSpansTraceparent() {
        Span span = tracer.spanBuilder("checkout").startSpan();
        try (Scope ignored = span.makeCurrent()) {
            client().schedules().create(create(), RequestOptions.none());
        } finally {
            span.end();
        }
        assertThat(server.received().get(0).header("traceparent")).isEqualTo(traceparent(span));
    }

    @Test
    void aCallOutsideAnySpanCarriesNoTraceparent() {
        client().schedules().create(create(), RequestOptions.none());
        assertThat(server.received().get(0).header("traceparent")).isNull();
    }

    @Test
    void theRelaysCallContinuesTheTraceOfTheTransactionThatWroteTheRowNotTheRelays() throws Exception {
        db = AppDatabase.sqlite(dir);
        IdemOutbox outbox = IdemOutbox.builder().build();
        outbox.createTable(db.dataSource());
        Span producer = tracer.spanBuilder("place order").startSpan();
        String id;
        try (Scope ignored = producer.makeCurrent();
                Connection tx = db.dataSource().getConnection()) {
            tx.setAutoCommit(false);
            id = outbox.enqueue(tx, create());
            tx.commit();
        } finally {
            producer.end();
        }
        Span relaySpan = tracer.spanBuilder("relay run").startSpan();
        try (Scope ignored = relaySpan.makeCurrent()) {
            assertThat(OutboxRelay.builder(outbox, db.dataSource(), client())
                            .build()
                            .runOnce())
                    .isEqualTo(1);
        } finally {
            relaySpan.end();
        }

        ScriptedServer.Received sent = server.received().get(0);
        assertThat(sent.idempotencyKey()).isEqualTo(id);
        assertThat(sent.header("traceparent")).isEqualTo(traceparent(producer));
        try (Connection c = db.dataSource().getConnection()) {
            assertThat(outbox.find(c, id).orElseThrow().traceparent()).isEqualTo(traceparent(producer));
        }
    }

    @Test
    void aTableMadeBeforeTheTraceColumnsGetsThemFromCreateTableAndKeepsItsRows() throws Exception {
        db = AppDatabase.sqlite(dir);
        db.exec("CREATE TABLE idem_outbox (id VARCHAR(64) NOT NULL PRIMARY KEY, request TEXT NOT NULL,"
                + " status VARCHAR(16) NOT NULL, attempts INT NOT NULL, available_at BIGINT NOT NULL,"
                + " claimed_by VARCHAR(100), first_sent_at BIGINT, schedule_id VARCHAR(64), last_error TEXT,"
                + " created_at BIGINT NOT NULL, sent_at BIGINT)");
        db.exec("INSERT INTO idem_outbox (id, request, status, attempts, available_at, created_at)"
                + " VALUES ('obx_old', '" + create().toJson() + "', 'pending', 0, 0, 0)");
        IdemOutbox outbox = IdemOutbox.builder().build();

        outbox.createTable(db.dataSource());
        outbox.createTable(db.dataSource());

        assertThat(OutboxRelay.builder(outbox, db.dataSource(), client())
                        .build()
                        .runOnce())
                .isEqualTo(1);
        ScriptedServer.Received sent = server.received().get(0);
        assertThat(sent.idempotencyKey()).isEqualTo("obx_old");
        assertThat(sent.header("traceparent")).isNull();
    }

    private static ScriptedServer newServer() {
        try {
            return new ScriptedServer();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}

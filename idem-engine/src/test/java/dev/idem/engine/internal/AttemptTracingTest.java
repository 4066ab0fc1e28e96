package dev.idem.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Delivery;
import dev.idem.core.Schedule;
import dev.idem.engine.testing.Defs;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.semconv.ServerAttributes;
import io.opentelemetry.semconv.UrlAttributes;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class AttemptTracingTest {
    private static final Instant DUE = Instant.parse("2026-03-10T17:00:00Z");
    private final InMemoryTracing sdk = new InMemoryTracing();

    @AfterEach
    void close() {
        sdk.close();
    }

    private SpanData attemptTo(String endpoint) {
        Schedule s = Defs.schedule("sch_1", Defs.TENANT, Defs.once(endpoint, DUE), DUE);
        Delivery d = Defs.claimed(s, "dlv_1", 1, 1);
        AttemptTracing.of(sdk.otel()).start(d, s, endpoint, 1).aborted();
        return sdk.spans().get(0);
    }

    @Test
    void theAttemptsUrlKeepsNoUserInfoQueryOrFragment() {
        SpanData span = attemptTo("https://user:pw@hooks.example.com:8443/in/abc?token=s3cret#frag");

        assertThat(span.getKind()).isEqualTo(SpanKind.CLIENT);
        assertThat(span.getAttributes().get(UrlAttributes.URL_FULL)).isEqualTo("https://hooks.example.com:8443/in/abc");
        assertThat(span.getAttributes().get(ServerAttributes.SERVER_ADDRESS)).isEqualTo("hooks.example.com");
        assertThat(span.getAttributes().get(ServerAttributes.SERVER_PORT)).isEqualTo(8443L);
    }

    @Test
    void aUrlWithoutAPortNamesTheSchemesPortAsServerPortOnly() {
        SpanData span = attemptTo("https://hooks.example.com/in");

        assertThat(span.getAttributes().get(UrlAttributes.URL_FULL)).isEqualTo("https://hooks.example.com/in");
        assertThat(span.getAttributes().get(ServerAttributes.SERVER_PORT)).isEqualTo(443L);
    }

    @Test
    void offMakesNoSpan() {
        Schedule s = Defs.schedule("sch_1", Defs.TENANT, Defs.once("https://example.com/x", DUE), DUE);
        assertThat(AttemptTracing.off().start(Defs.claimed(s, "dlv_1", 1, 1), s, "https://example.com/x", 1))
                .isNull();
    }
}

package dev.idem.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TraceContextTest {
    private static final String VALID = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    @Test
    void aValidTraceparentIsKeptAsSentWithItsTracestate() {
        TraceContext t = TraceContext.fromHeaders(VALID, "vendor=a").orElseThrow();
        assertThat(t.traceparent()).isEqualTo(VALID);
        assertThat(t.tracestate()).isEqualTo("vendor=a");
        assertThat(t.traceId()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
    }

    @Test
    void aMalformedTraceparentIsIgnoredAndItsTracestateWithIt() {
        for (String bad : new String[] {
            null,
            "",
            "00-not-a-trace-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", // upper case
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01", // zero trace id
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", // zero parent id
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", // the forbidden version
            VALID + "-extra", // version 00 has nothing after the flags
        }) assertThat(TraceContext.fromHeaders(bad, "vendor=a")).as(bad).isEmpty();
        assertThatThrownBy(() -> new TraceContext("00-x", null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aLaterVersionIsReadByItsVersion00FieldsAndAnEmptyOrOversizedTracestateIsDropped() {
        String later = "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-more";
        assertThat(TraceContext.fromHeaders(later, null).orElseThrow().traceId())
                .isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
        assertThat(TraceContext.fromHeaders(VALID, " ").orElseThrow().tracestate())
                .isNull();
        assertThat(TraceContext.fromHeaders(VALID, "a=" + "b".repeat(TraceContext.MAX_TRACESTATE))
                        .orElseThrow()
                        .tracestate())
                .isNull();
    }
}

package dev.idem.core.fanout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class ScheduledFanOutTest {
    private static final Instant T = Instant.parse("2026-03-10T08:00:00Z");

    @Test
    void aTargetRoundTripsThroughTheDefinitionsEndpointAndAUrlIsNoTarget() {
        var all = new FanOutTarget("report.daily", null);
        var one = new FanOutTarget("invoice.paid", "app_01hx");
        assertThat(FanOutTarget.of(all.uri())).contains(all);
        assertThat(FanOutTarget.of(one.uri())).contains(one);
        assertThat(FanOutTarget.of("https://example.com/idem:fanout?event_type=a"))
                .isEmpty();
        assertThat(FanOutTarget.of("http://127.0.0.1/")).isEmpty();
    }

    @Test
    void aTargetNeedsAnEventTypeNameAndAnApplicationId() {
        assertThatThrownBy(() -> new FanOutTarget("a b", null)).hasMessageContaining("event_type");
        assertThatThrownBy(() -> new FanOutTarget("a.b", "cust_42")).hasMessageContaining("app_");
    }

    @Test
    void anOccurrencesMessageIdDependsOnlyOnTheScheduleAndTheOccurrence() {
        String id = ScheduledFanOut.messageId("sch_a", T);
        assertThat(id).startsWith("msg_").hasSize("msg_".length() + 26);
        assertThat(ScheduledFanOut.messageId("sch_a", T)).isEqualTo(id);
        assertThat(ScheduledFanOut.messageId("sch_b", T)).isNotEqualTo(id);
        assertThat(ScheduledFanOut.messageId("sch_a", T.plusMillis(1))).isNotEqualTo(id);
        // ids sort by occurrence, as drawn ids sort by creation
        assertThat(ScheduledFanOut.messageId("sch_z", T))
                .isLessThan(ScheduledFanOut.messageId("sch_a", T.plusSeconds(1)));
    }

    @Test
    void aTargetReadingTheTypeFromEachEventRoundTripsAndReadsAHeaderOrAJsonPointer() throws Exception {
        var header = new FanOutTarget(null, "header:X-GitHub-Event", "app_1");
        var pointer = new FanOutTarget(null, "json:/data/type&x", null);
        assertThat(FanOutTarget.of(header.uri())).contains(header);
        assertThat(FanOutTarget.of(pointer.uri())).contains(pointer);
        var body =
                new com.fasterxml.jackson.databind.ObjectMapper().readTree("{\"data\":{\"type&x\":\"invoice.paid\"}}");
        java.util.function.UnaryOperator<String> headers = n -> n.equalsIgnoreCase("x-github-event") ? " push " : null;
        assertThat(header.eventTypeOf(headers, body)).contains("push");
        assertThat(pointer.eventTypeOf(headers, body)).contains("invoice.paid");
        assertThat(pointer.eventTypeOf(headers, null)).isEmpty();
        assertThat(header.eventTypeOf(n -> "not a name", body)).isEmpty();
        assertThatThrownBy(() -> new FanOutTarget(null, "query:x", null)).hasMessageContaining("header:");
        assertThatThrownBy(() -> new FanOutTarget("a.b", "header:X", null)).hasMessageContaining("event type");
    }
}

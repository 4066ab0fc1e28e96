package dev.idem.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ScheduleDefinitionBuilderTest {
    static final Timing ONCE = new Timing.Once(Instant.parse("2030-01-01T00:00:00Z"));

    @Test
    void aBuiltDefinitionHasTheDocumentedDefaults() {
        ScheduleDefinition d =
                ScheduleDefinition.builder("https://example.com/hook", ONCE).build();
        assertThat(d.retry()).isEqualTo(RetryPolicy.DEFAULT);
        assertThat(d.timeout()).isEqualTo(ScheduleDefinition.DEFAULT_TIMEOUT);
        assertThat(d.autoPauseAfter()).isEqualTo(ScheduleDefinition.DEFAULT_AUTO_PAUSE_AFTER);
        assertThat(d.headerProfile()).isEqualTo(HeaderProfile.STANDARD);
        assertThat(d.headers()).isEmpty();
        assertThat(d.contentType()).isEqualTo("application/json");
        assertThat(d.payloadJson()).isNull();
        assertThat(d.flowControl()).isNull();
        assertThat(d.bodyBase64()).isFalse();
    }

    @Test
    void toBuilderKeepsEveryValueAndTheWithCopiesChangeOnlyTheirs() {
        ScheduleDefinition d = ScheduleDefinition.builder("https://example.com/hook", ONCE)
                .body("aGk=", true)
                .contentType("application/octet-stream")
                .headers(Map.of("X-A", "1"))
                .eventType("user.created")
                .idempotencyKey("k1")
                .dedupId("d1")
                .timeout(Duration.ofSeconds(7))
                .autoPauseAfter(0)
                .metadataJson("{\"a\":1}")
                .build();
        assertThat(d.toBuilder().build()).isEqualTo(d);
        ScheduleDefinition moved = d.withEndpoint("https://example.org/other");
        assertThat(moved.endpoint()).isEqualTo("https://example.org/other");
        assertThat(moved.toBuilder().endpoint(d.endpoint()).build()).isEqualTo(d);
        assertThat(d.bodyBytes()).containsExactly('h', 'i');
    }

    @Test
    void theBuilderValidatesAsTheConstructorDoes() {
        assertThatThrownBy(() -> ScheduleDefinition.builder("https://example.com/hook", ONCE)
                        .payloadJson("{}")
                        .body("x")
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not both");
        assertThatThrownBy(() -> ScheduleDefinition.builder("https://example.com/hook", ONCE)
                        .timeout(Duration.ofSeconds(61))
                        .build())
                .hasMessageContaining("at most 60s");
    }
}

package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class EngineConfigTest {
    private final EngineConfig defaults = EngineConfig.defaults("node-a");

    @Test
    void defaultsKeepTheLeaseLongerThanTheLongestRequest() {
        assertThat(defaults.lease()).isGreaterThan(defaults.maxRequestTimeout());
        assertThat(defaults.maxRequestTimeout()).isEqualTo(Duration.ofSeconds(60));
        assertThat(defaults.retention()).isEqualTo(Duration.ofDays(30));
        assertThat(defaults.allowPrivateEndpoints()).isFalse();
    }

    @Test
    void refusesALeaseNotLongerThanTheRequestCeiling() {
        assertThatThrownBy(() -> defaults.withLease(Duration.ofSeconds(60), Duration.ofSeconds(60)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lease").hasMessageContaining("maxRequestTimeout");
    }

    @Test
    void refusesOutOfRangeValuesNamingTheField() {
        assertThatThrownBy(() -> defaults.withBatchSize(0)).hasMessageContaining("batchSize");
        assertThatThrownBy(() -> defaults.withMaxInFlight(0)).hasMessageContaining("maxInFlight");
        assertThatThrownBy(() -> defaults.withNodeId(" ")).hasMessageContaining("nodeId");
        assertThatThrownBy(() -> defaults.withRetention(Duration.ofMinutes(5))).hasMessageContaining("retention");
        assertThatThrownBy(() -> defaults.withShutdownGrace(Duration.ofSeconds(-1))).hasMessageContaining("shutdownGrace");
        assertThatThrownBy(() -> defaults.withLease(Duration.ofSeconds(90), Duration.ofSeconds(61))).hasMessageContaining("at most 60s");
        assertThatThrownBy(() -> defaults.withMaterialiserHorizon(Duration.ofMillis(600))).hasMessageContaining("twice pollInterval");
        assertThatThrownBy(() -> defaults.withLiveness(Duration.ofMillis(10), Duration.ofSeconds(10))).hasMessageContaining("livenessInterval");
    }

    @Test
    void defaultsRenewLivenessEveryTwoSecondsWithATenSecondTakeoverWindow() {
        assertThat(defaults.livenessInterval()).isEqualTo(Duration.ofSeconds(2));
        assertThat(defaults.takeoverWindow()).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void refusesATakeoverWindowThatOneSlowRenewalCouldOutlast() {
        assertThatThrownBy(() -> defaults.withLiveness(Duration.ofSeconds(2), Duration.ofSeconds(7)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("takeoverWindow").hasMessageContaining("four times");
    }
}

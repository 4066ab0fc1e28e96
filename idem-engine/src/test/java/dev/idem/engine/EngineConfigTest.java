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
    void defaultsAreTheProductionFiguresForTheNamedNode() {
        assertThat(defaults.nodeId()).isEqualTo("node-a");
        assertThat(defaults.batchSize()).isEqualTo(EngineConfig.DEFAULT_BATCH);
        assertThat(defaults.maxInFlight()).isEqualTo(EngineConfig.DEFAULT_MAX_IN_FLIGHT);
        assertThat(defaults.maxConnectionsPerHost()).isEqualTo(1_000);
        assertThat(defaults.lease()).isEqualTo(Duration.ofSeconds(90));
        assertThat(defaults.materialiserHorizon()).isEqualTo(Duration.ofSeconds(60));
        assertThat(defaults.pollInterval()).isEqualTo(Duration.ofMillis(500));
        assertThat(defaults.reaperInterval()).isEqualTo(Duration.ofSeconds(5));
        assertThat(defaults.shutdownGrace()).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void aBuilderWithoutANodeIdIsRefusedNamingIt() {
        assertThatThrownBy(() -> EngineConfig.builder().build())
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("nodeId");
    }

    @Test
    void toBuilderCopiesEveryFieldAndLeavesTheOriginalAlone() {
        EngineConfig changed = EngineConfig.builder()
                .nodeId("node-b")
                .batchSize(7)
                .maxInFlight(70)
                .maxConnectionsPerHost(9)
                .lease(Duration.ofSeconds(40))
                .maxRequestTimeout(Duration.ofSeconds(30))
                .materialiserHorizon(Duration.ofSeconds(3))
                .pollInterval(Duration.ofMillis(50))
                .reaperInterval(Duration.ofMillis(100))
                .retention(Duration.ofHours(2))
                .shutdownGrace(Duration.ZERO)
                .allowPrivateEndpoints(true)
                .livenessInterval(Duration.ofMillis(100))
                .takeoverWindow(Duration.ofSeconds(1))
                .build();
        EngineConfig copy = changed.toBuilder().build();

        assertThat(copy).usingRecursiveComparison().isEqualTo(changed);
        assertThat(copy.toString()).isEqualTo(changed.toString());
        assertThat(changed.toBuilder().nodeId("node-c").build().nodeId()).isEqualTo("node-c");
        assertThat(changed.nodeId()).isEqualTo("node-b");
    }

    @Test
    void fieldsThatBoundEachOtherMayBeSetInAnyOrder() {
        // a 30 s lease is refused with the default 60 s request ceiling, but not once the ceiling is lowered too
        EngineConfig shortLease = defaults.toBuilder()
                .lease(Duration.ofSeconds(30))
                .maxRequestTimeout(Duration.ofSeconds(20))
                .build();
        assertThat(shortLease.lease()).isEqualTo(Duration.ofSeconds(30));
        EngineConfig slowLiveness = defaults.toBuilder()
                .takeoverWindow(Duration.ofSeconds(60))
                .livenessInterval(Duration.ofSeconds(15))
                .build();
        assertThat(slowLiveness.livenessInterval()).isEqualTo(Duration.ofSeconds(15));
    }

    @Test
    void refusesALeaseNotLongerThanTheRequestCeiling() {
        assertThatThrownBy(() -> defaults.toBuilder()
                        .lease(Duration.ofSeconds(60))
                        .maxRequestTimeout(Duration.ofSeconds(60))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lease")
                .hasMessageContaining("maxRequestTimeout");
    }

    @Test
    void refusesOutOfRangeValuesNamingTheField() {
        assertThatThrownBy(() -> defaults.toBuilder().batchSize(0).build()).hasMessageContaining("batchSize");
        assertThatThrownBy(() -> defaults.toBuilder().batchSize(1001).build()).hasMessageContaining("batchSize");
        assertThatThrownBy(() -> defaults.toBuilder().maxInFlight(0).build()).hasMessageContaining("maxInFlight");
        assertThatThrownBy(() -> defaults.toBuilder().maxConnectionsPerHost(0).build())
                .hasMessageContaining("maxConnectionsPerHost");
        assertThatThrownBy(() ->
                        defaults.toBuilder().maxConnectionsPerHost(1_000_001).build())
                .hasMessageContaining("maxConnectionsPerHost");
        assertThatThrownBy(() -> defaults.toBuilder().nodeId(" ").build()).hasMessageContaining("nodeId");
        assertThatThrownBy(() ->
                        defaults.toBuilder().retention(Duration.ofMinutes(5)).build())
                .hasMessageContaining("retention");
        assertThatThrownBy(() -> defaults.toBuilder()
                        .shutdownGrace(Duration.ofSeconds(-1))
                        .build())
                .hasMessageContaining("shutdownGrace");
        assertThatThrownBy(() -> defaults.toBuilder()
                        .maxRequestTimeout(Duration.ofSeconds(61))
                        .build())
                .hasMessageContaining("at most 60s");
        assertThatThrownBy(() -> defaults.toBuilder()
                        .materialiserHorizon(Duration.ofMillis(600))
                        .build())
                .hasMessageContaining("twice pollInterval");
        assertThatThrownBy(() ->
                        defaults.toBuilder().pollInterval(Duration.ofMillis(5)).build())
                .hasMessageContaining("pollInterval");
        assertThatThrownBy(
                        () -> defaults.toBuilder().reaperInterval(Duration.ZERO).build())
                .hasMessageContaining("reaperInterval");
        assertThatThrownBy(() -> defaults.toBuilder()
                        .livenessInterval(Duration.ofMillis(10))
                        .build())
                .hasMessageContaining("livenessInterval");
        assertThatThrownBy(() -> defaults.toBuilder().lease(null).build())
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("lease");
    }

    @Test
    void defaultsRenewLivenessEveryTwoSecondsWithATenSecondTakeoverWindow() {
        assertThat(defaults.livenessInterval()).isEqualTo(Duration.ofSeconds(2));
        assertThat(defaults.takeoverWindow()).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void refusesATakeoverWindowThatOneSlowRenewalCouldOutlast() {
        assertThatThrownBy(() -> defaults.toBuilder()
                        .livenessInterval(Duration.ofSeconds(2))
                        .takeoverWindow(Duration.ofSeconds(7))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("takeoverWindow")
                .hasMessageContaining("four times");
    }
}

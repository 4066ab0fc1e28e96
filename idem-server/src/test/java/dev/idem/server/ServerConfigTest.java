package dev.idem.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ServerConfigTest {
    static ServerConfig.Builder node() {
        return ServerConfig.builder().port(0).dataDir(Path.of("data")).nodeId("n1");
    }

    static ServerConfig withRetention(Duration retention) {
        return node().retention(retention).build();
    }

    @Test
    void finishedDeliveriesAreKeptThirtyDaysUnlessToldOtherwise() {
        assertThat(ServerConfig.defaults().retention()).isEqualTo(Duration.ofDays(30));
        assertThat(withRetention(Duration.ofHours(72)).describe()).endsWith("finished deliveries kept 3d");
    }

    @Test
    void aRetentionShorterThanAnHourIsRefusedWithTheBoundAndTheValue() {
        assertThat(withRetention(Duration.ofHours(1)).retention()).isEqualTo(Duration.ofHours(1));
        assertThatThrownBy(() -> withRetention(Duration.ofMinutes(59)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 1h")
                .hasMessageContaining("got 59m");
        assertThatThrownBy(() -> withRetention(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("retention");
    }

    @Test
    void aNodeHoldsTenThousandDeliveriesInFlightUnlessToldOtherwiseAndRefusesZero() {
        assertThat(ServerConfig.defaults().maxInFlight()).isEqualTo(10_000);
        ServerConfig small =
                node().retention(Duration.ofDays(1)).maxInFlight(50).build();
        assertThat(small.describe()).contains("at most 50 deliveries in flight");
        assertThatThrownBy(() -> node().maxInFlight(0).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxInFlight must be between 1 and 1000000")
                .hasMessageContaining("got 0");
    }

    @Test
    void theEngineAndTheStoreAreComposedFromTheNodesValues() {
        ServerConfig config = node().allowPrivateEndpoints(true)
                .retention(Duration.ofHours(5))
                .maxInFlight(70)
                .build();
        assertThat(config.engine().nodeId()).isEqualTo("n1");
        assertThat(config.engine().allowPrivateEndpoints()).isTrue();
        assertThat(config.engine().retention()).isEqualTo(Duration.ofHours(5));
        assertThat(config.engine().maxInFlight()).isEqualTo(70);
        assertThat(config.store().dialect()).isEqualTo("sqlite");
        assertThat(config.store().jdbcUrl()).endsWith("idem.db");

        ServerConfig postgres =
                node().database("jdbc:postgresql://db/idem", "idem", "s3cret").build();
        assertThat(postgres.store().dialect()).isEqualTo("postgresql");
        assertThat(postgres.store().user()).isEqualTo("idem");
        assertThat(postgres.toBuilder().build().store()).isEqualTo(postgres.store());
    }

    @Test
    void engineSettingsBeyondTheNodesOwnComeFromTheEngineSettingsAndTheNodesValuesWin() {
        ServerConfig config = node().engine(e -> e.pollInterval(Duration.ofMillis(100))
                        .materialiserHorizon(Duration.ofSeconds(2))
                        .nodeId("ignored")
                        .maxInFlight(3))
                .maxInFlight(70)
                .build();
        assertThat(config.engine().pollInterval()).isEqualTo(Duration.ofMillis(100));
        assertThat(config.engine().materialiserHorizon()).isEqualTo(Duration.ofSeconds(2));
        assertThat(config.engine().nodeId()).isEqualTo("n1");
        assertThat(config.engine().maxInFlight()).isEqualTo(70);

        ServerConfig again = config.toBuilder().build();
        assertThat(again.engine().pollInterval()).isEqualTo(Duration.ofMillis(100));
        assertThat(again.engine().materialiserHorizon()).isEqualTo(Duration.ofSeconds(2));
        assertThat(config.toBuilder().nodeId("n2").build().engine().nodeId()).isEqualTo("n2");
        assertThat(ServerConfig.defaults().engine().pollInterval())
                .isEqualTo(dev.idem.engine.EngineConfig.defaults("x").pollInterval());
    }

    @Test
    void aDatabaseUrlOfAnotherKindIsRefusedNamingTheFlagWithoutItsPassword() {
        assertThatThrownBy(() -> node().database("jdbc:mysql://u:hunter2@db/idem", null, null)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("--database-url: ")
                .hasMessageNotContaining("hunter2");
    }

    @Test
    void aBlankNodeIdBecomesTheHostNameAndPid() {
        assertThat(node().nodeId(" ").build().nodeId())
                .endsWith("-" + ProcessHandle.current().pid());
    }
}

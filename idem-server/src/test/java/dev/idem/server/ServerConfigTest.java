package dev.idem.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ServerConfigTest {
    static ServerConfig withRetention(Duration retention) {
        return new ServerConfig("127.0.0.1", 0, Path.of("data"), null, null, null, null, false, "n1", 100, retention);
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
        ServerConfig small = new ServerConfig(
                "127.0.0.1", 0, Path.of("data"), null, null, null, null, false, "n1", 100, Duration.ofDays(1), 50);
        assertThat(small.describe()).contains("at most 50 deliveries in flight");
        assertThatThrownBy(() -> new ServerConfig(
                        "127.0.0.1",
                        0,
                        Path.of("data"),
                        null,
                        null,
                        null,
                        null,
                        false,
                        "n1",
                        100,
                        Duration.ofDays(1),
                        0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--max-in-flight")
                .hasMessageContaining("got 0");
    }
}
